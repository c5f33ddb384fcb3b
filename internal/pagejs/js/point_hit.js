function() {
	const n = this.nodeType === 1 ? this : this.parentElement;
	if (!n) return {tag: this.nodeName.toLowerCase()};
	return {tag: n.localName, id: n.id || '', classes: Array.from(n.classList || []).slice(0, 4),
		text: String(n.innerText || n.textContent || '').slice(0, 200)};
}
