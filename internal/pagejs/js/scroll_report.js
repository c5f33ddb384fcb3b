(el) => {
	const se = document.scrollingElement || document.documentElement;
	if (!el) return {X: scrollX, Y: scrollY, W: se.scrollWidth, H: se.scrollHeight, VW: innerWidth, VH: innerHeight};
	return {X: el.scrollLeft, Y: el.scrollTop, W: el.scrollWidth, H: el.scrollHeight, VW: el.clientWidth, VH: el.clientHeight,
		Container: {tag: el.localName, id: el.id || '', classes: Array.from(el.classList).slice(0, 4)}};
}
