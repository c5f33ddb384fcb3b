function() {
	const e = this.nodeType === 1 ? this : this.parentElement;
	return !!e && e.matches(':hover');
}
