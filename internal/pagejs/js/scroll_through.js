// Scrolls the page down by viewport heights so that content which loads or
// paints only once seen (IntersectionObserver, loading=lazy) does so,
// waiting two frames at each stop; then waits for images still loading,
// all within budget ms, and scrolls back to where the page was. A stop
// inside the viewport the page shows now is skipped, since that part has
// been seen, so a page that fits its viewport is not scrolled and costs no
// frame. Returns the device pixel ratio, which the capture needs next.
async (budget) => {
	const end = performance.now() + budget;
	const el = document.scrollingElement || document.documentElement;
	const x = scrollX, y = scrollY, h = innerHeight;
	const frame = () => new Promise(r => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
	const step = Math.max(h, 100);
	let moved = false;
	for (let top = 0; top < el.scrollHeight && performance.now() < end; top += step) {
		if (top >= y && top + step <= y + h) continue;
		scrollTo({left: x, top, behavior: "instant"});
		moved = true;
		await frame();
	}
	const pending = [...document.images].filter(i => !i.complete);
	if (pending.length > 0) {
		await Promise.race([
			Promise.all(pending.map(i => new Promise(r => {
				i.addEventListener("load", r, {once: true});
				i.addEventListener("error", r, {once: true});
			}))),
			new Promise(r => setTimeout(r, Math.max(0, end - performance.now()))),
		]);
	}
	// The capture lays the page out again itself: no frame to wait for.
	if (moved) scrollTo({left: x, top: y, behavior: "instant"});
	return devicePixelRatio;
}
