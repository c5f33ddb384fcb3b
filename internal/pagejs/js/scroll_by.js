(ux, uy, pixels) => {
	const se = document.scrollingElement || document.documentElement;
	const room = (pos, client, size) => (ux + uy > 0 ? size - client - pos : pos) > 1;
	const pageCan = uy ? room(scrollY, innerHeight, se.scrollHeight) : room(scrollX, innerWidth, se.scrollWidth);
	let el = null;
	if (!pageCan) {
		const scrollable = e => {
			const o = getComputedStyle(e)[uy ? 'overflowY' : 'overflowX'];
			return (o === 'auto' || o === 'scroll' || o === 'overlay') &&
				(uy ? room(e.scrollTop, e.clientHeight, e.scrollHeight) : room(e.scrollLeft, e.clientWidth, e.scrollWidth));
		};
		for (let e = document.elementFromPoint(innerWidth / 2, innerHeight / 2); e && e !== se && e !== document.body; e = e.parentElement || (e.getRootNode() && e.getRootNode().host)) {
			if (scrollable(e)) { el = e; break; }
		}
	}
	const amount = pixels || Math.round(0.8 * (el ? (uy ? el.clientHeight : el.clientWidth) : (uy ? innerHeight : innerWidth)));
	(el || window).scrollBy({left: ux * amount, top: uy * amount, behavior: 'instant'});
	return scrollReport(el);
}
