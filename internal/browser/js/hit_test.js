function(el) {
	const up = p => p.parentNode || (p.nodeType === 11 ? p.host : null);
	const holds = (a, b) => { for (let p = b; p; p = up(p)) if (p === a) return true; return false; };
	if (el && el.nodeType !== 1) el = el.parentElement; // a text node's ref: its element
	if (el && holds(el, this)) return {inside: true};
	let n = this.nodeType === 1 ? this : this.parentElement;
	if (!n) return {tag: this.nodeName.toLowerCase()};
	const ancestor = !!el && holds(n, el);
	if (!ancestor) {
		const stop = [n.ownerDocument.body, n.ownerDocument.documentElement];
		while (n.parentElement && !stop.includes(n.parentElement) && !(el && holds(n.parentElement, el))) n = n.parentElement;
	}
	return {ancestor, tag: n.localName, id: n.id || '', classes: Array.from(n.classList || []).slice(0, 4),
		text: String(n.innerText || n.textContent || '').slice(0, 200)};
}
