async (budget) => {
	const end = performance.now() + budget;
	const el = document.scrollingElement || document.documentElement;
	const x = scrollX, y = scrollY;
	const frame = () => new Promise(r => { requestAnimationFrame(() => requestAnimationFrame(r)); setTimeout(r, 100); });
	const step = Math.max(innerHeight, 100);
	for (let top = 0; top < el.scrollHeight && performance.now() < end; top += step) {
		scrollTo({left: x, top, behavior: "instant"});
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
	scrollTo({left: x, top: y, behavior: "instant"});
	await frame();
}
