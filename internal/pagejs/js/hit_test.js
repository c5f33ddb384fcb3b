function(el) {
	const up = p => p.parentNode || (p.nodeType === 11 ? p.host : null);
	const holds = (a, b) => { for (let p = b; p; p = up(p)) if (p === a) return true; return false; };
	if (el && el.nodeType !== 1) el = el.parentElement; // a text node's ref: its element
	if (el && holds(el, this)) return {inside: true};
	let n = this.nodeType === 1 ? this : this.parentElement;
	if (!n) return {tag: this.nodeName.toLowerCase()};
	// Part of the same widget: el's shadow host or anything in its shadow
	// tree (a styled track over the real input), or a label that passes
	// its clicks to el (a styled proxy of a checkbox).
	if (el) {
		const root = el.getRootNode();
		if (root && root.nodeType === 11 && root.host && (n === root.host || holds(root, n))) return {inside: true};
		for (let p = n; p; p = up(p)) {
			if (p.localName === 'label' && (p.control === el || holds(p, el))) return {inside: true};
		}
	}
	const ancestor = !!el && holds(n, el);
	if (!ancestor) {
		const stop = [n.ownerDocument.body, n.ownerDocument.documentElement];
		while (n.parentElement && !stop.includes(n.parentElement) && !(el && holds(n.parentElement, el))) n = n.parentElement;
	}
	return {ancestor, tag: n.localName, id: n.id || '', classes: Array.from(n.classList || []).slice(0, 4),
		text: String(n.innerText || n.textContent || '').slice(0, 200)};
}
