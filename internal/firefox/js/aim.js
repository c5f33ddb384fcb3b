async function(stableMs) {
	// Where a pointer would click the element: the centre of its first
	// box in the viewport after scrolling it into view, once the box has
	// come to rest (two reads a frame apart agree, or stableMs has passed,
	// as Chromium's settledQuads), checked with a hit test (through open
	// shadow roots) so that a covered element is refused rather than
	// clicking what covers it.
	const el = this.nodeType === 1 ? this : this.parentElement;
	if (!el || !el.isConnected) return {gone: true};
	el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
	if (el.matches(':disabled')) return {disabled: true};
	const boxes = n => Array.from(n.getClientRects()).filter(r => r.width > 0 && r.height > 0);
	// A control without a box of its own (a zero-size checkbox drawn by
	// its label) is clicked through its label, where a person clicks.
	const read = () => {
		let rs = boxes(el);
		for (const l of Array.from(el.labels || [])) {
			if (rs.length) break;
			rs = boxes(l);
		}
		return rs;
	};
	const frame = () => new Promise(r => { requestAnimationFrame(() => r()); setTimeout(r, 100); });
	const same = (a, b) => a.length === b.length && a.every((r, i) =>
		Math.abs(r.left - b[i].left) < 0.01 && Math.abs(r.top - b[i].top) < 0.01 &&
		Math.abs(r.width - b[i].width) < 0.01 && Math.abs(r.height - b[i].height) < 0.01);
	// A finite animation of el or of what holds it that is running, or still
	// pending (Firefox holds a new one at its start until it is painted,
	// so two reads may agree before it moves anything), is not at rest.
	const animated = () => {
		if (!document.getAnimations) return false;
		for (const a of document.getAnimations()) {
			if (a.playState !== 'running' && !a.pending) continue;
			// A spinner that never ends would hold every click the whole
			// stableMs: such an animation is left to the box comparison.
			if (!a.effect || a.effect.getComputedTiming().endTime === Infinity) continue;
			for (let p = el; p; p = p.parentNode || (p.nodeType === 11 ? p.host : null)) {
				if (a.effect && a.effect.target === p) return true;
			}
		}
		return false;
	};
	const until = performance.now() + (stableMs || 0);
	let rects = read();
	// The count bounds the wait on a page whose clock stands still.
	for (let i = 0; rects.length && i < 60 && performance.now() < until; i++) {
		await frame();
		if (!el.isConnected) return {gone: true};
		const cur = read();
		if (same(rects, cur) && !animated()) break;
		rects = cur;
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
