function() {
	// Where a pointer would click the element: the centre of its first
	// box in the viewport after scrolling it into view, checked with a hit
	// test (through open shadow roots) so that a covered element is refused
	// rather than clicking what covers it.
	const el = this.nodeType === 1 ? this : this.parentElement;
	if (!el || !el.isConnected) return {gone: true};
	el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
	if (el.matches(':disabled')) return {disabled: true};
	const rects = Array.from(el.getClientRects()).filter(r => r.width > 0 && r.height > 0);
	if (!rects.length) return {hidden: true};
	const up = p => p.parentNode || (p.nodeType === 11 ? p.host : null);
	const holds = (a, b) => { for (let p = b; p; p = up(p)) if (p === a) return true; return false; };
	let covered = '';
	for (const r of rects) {
		const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, innerWidth);
		const y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, innerHeight);
		if (x1 - x0 < 1 || y1 - y0 < 1) continue;
		const x = Math.floor((x0 + x1) / 2), y = Math.floor((y0 + y1) / 2);
		let h = document.elementFromPoint(x, y);
		while (h && h.shadowRoot) {
			const d = h.shadowRoot.elementFromPoint(x, y);
			if (!d || d === h) break;
			h = d;
		}
		if (h && holds(el, h)) return {x, y};
		if (h && !covered) {
			covered = h.localName + (h.id ? '#' + h.id : '') + Array.from(h.classList || []).slice(0, 3).map(c => '.' + c).join('');
			const t = String(h.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 60);
			if (t) covered += ' ' + JSON.stringify(t);
		}
	}
	return covered ? {covered} : {offscreen: true};
}
