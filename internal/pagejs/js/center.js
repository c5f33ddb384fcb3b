function() {
	const e = this.nodeType === 1 ? this : this.parentElement;
	e.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
}
