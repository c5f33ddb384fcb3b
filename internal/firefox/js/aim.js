async function(boundMs) {
	// Where a pointer would click the element, after scrolling it into
	// view: once its boxes read the same two frames apart and a hit test
	// (through open shadow roots) shows the element at a point of them, that
	// point; the centre of its first visible box first, then the centres
	// of its quarters, then its other boxes' (Chromium's rule). A covered
	// element is refused rather than clicking what covers it. An element
	// still moving or covered is looked at again each frame, for boundMs
	// at most; then it is clicked where it is, or refused. It runs in the
	// sandbox: a page that stubs its frames and timers cannot stall it.
	const el = this.nodeType === 1 ? this : this.parentElement;
	if (!el || !el.isConnected) return {gone: true};
	el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
	if (el.matches(':disabled')) return {disabled: true};
	const boxes = n => Array.from(n.getClientRects()).filter(r => r.width > 0 && r.height > 0);
	// A control without a box of its own (a zero-size checkbox drawn by
	// its label) is clicked through its label, where a person clicks.
	const read = () => {
		let rs = boxes(el);
		const own = rs.length > 0;
		for (const l of Array.from(el.labels || [])) {
			if (rs.length) break;
			rs = boxes(l);
		}
		return {rs, own};
	};
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
	const fractions = [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]];
	const maxPoints = 10;
	// look hit-tests the points of boxes: the first that hits el, else
	// what the first point hits (covered), else offscreen.
	const look = ({rs, own}) => {
		let covered = '';
		const seen = new Set();
		for (const r of rs) {
			const x0 = Math.max(r.left, 0), x1 = Math.min(r.right, innerWidth);
			const y0 = Math.max(r.top, 0), y1 = Math.min(r.bottom, innerHeight);
			if (x1 - x0 < 1 || y1 - y0 < 1) continue;
			for (const [u, v] of fractions) {
				const x = Math.floor(x0 + (x1 - x0) * u), y = Math.floor(y0 + (y1 - y0) * v);
				if (seen.has(x + ',' + y) || seen.size >= maxPoints) continue;
				seen.add(x + ',' + y);
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
		}
		return covered ? {covered} : {offscreen: true};
	};
	const same = (a, b) => a.rs.length === b.rs.length && a.rs.every((r, i) =>
		Math.abs(r.left - b.rs[i].left) < 0.01 && Math.abs(r.top - b.rs[i].top) < 0.01 &&
		Math.abs(r.width - b.rs[i].width) < 0.01 && Math.abs(r.height - b.rs[i].height) < 0.01);
	// The next frame, or 50 ms where frames do not come (a page in the
	// background).
	const frame = () => new Promise(r => { requestAnimationFrame(() => r()); setTimeout(r, 50); });
	const until = performance.now() + Math.max(0, boundMs || 0);
	let prev = read();
	if (!prev.rs.length) return {hidden: true};
	// The count bounds the wait should the clock stand still.
	for (let i = 0; i < 100 && performance.now() < until; i++) {
		await frame();
		if (!el.isConnected) return {gone: true};
		const cur = read();
		if (cur.rs.length && same(prev, cur)) {
			const got = look(cur);
			if (got.x !== undefined) return got;
		}
		prev = cur;
	}
	if (!el.isConnected) return {gone: true};
	const last = read();
	if (!last.rs.length) return {hidden: true};
	return look(last);
}
