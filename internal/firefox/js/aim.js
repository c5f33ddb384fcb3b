function() {
	// Where a pointer would click the element: the centre of its first
	// box in the viewport after scrolling it into view, checked with a hit
	// test (through open shadow roots) so that a covered element is refused
	// rather than clicking what covers it.
	const el = this.nodeType === 1 ? this : this.parentElement;
	if (!el || !el.isConnected) return {gone: true};
	el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
	if (el.matches(':disabled')) return {disabled: true};
	const boxes = n => Array.from(n.getClientRects()).filter(r => r.width > 0 && r.height > 0);
	let rects = boxes(el);
	const own = rects.length > 0;
	// A control without a box of its own (a zero-size checkbox drawn by
	// its label) is clicked through its label, where a person clicks.
	for (const l of Array.from(el.labels || [])) {
		if (rects.length) break;
		rects = boxes(l);
	}
	if (!rects.length) return {hidden: true};
	const up = p => p.parentNode || (p.nodeType === 11 ? p.host : null);
	const within = (a, b) => { for (let p = b; p; p = up(p)) if (p === a) return true; return false; };
	// A hit on el, its shadow host or its shadow tree, or a label passing
	// clicks to el is a hit on el: parts of one widget (a styled track over
	// the real input) do not cover it.
	const root = el.getRootNode();
	const holds = (a, b) => {
		if (within(a, b)) return true;
		if (root.nodeType === 11 && root.host && (b === root.host || within(root, b))) return true;
		for (let p = b; p; p = up(p)) if (p.localName === 'label' && (p.control === a || within(p, a))) return true;
		return false;
	};
	// The point's offset from the centre of the visible part of the
	// element's first box, where a pointer action with the element as its
	// origin starts (WebDriver's in-view centre point): the click goes
	// there, so that it follows the element if the layout moves it before
	// the pointer does.
	const offset = (x, y) => {
		const r = el.getClientRects()[0];
		const mid = (a, b, max) => Math.floor((Math.max(0, Math.min(a, b)) + Math.min(max, Math.max(a, b))) / 2);
		return {x: x - mid(r.left, r.right, innerWidth), y: y - mid(r.top, r.bottom, innerHeight)};
	};
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
		if (h && holds(el, h)) return own ? {x, y, offset: offset(x, y)} : {x, y};
		if (h && !covered) {
			covered = h.localName + (h.id ? '#' + h.id : '') + Array.from(h.classList || []).slice(0, 3).map(c => '.' + c).join('');
			const t = String(h.innerText || '').replace(/\s+/g, ' ').trim().slice(0, 60);
			if (t) covered += ' ' + JSON.stringify(t);
		}
	}
	return covered ? {covered} : {offscreen: true};
}
