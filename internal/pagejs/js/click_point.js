function() {
	const el = this, win = el.ownerDocument.defaultView;
	if (!win || win !== win.top) return null;
	el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
	const hits = n => n === el || (el.labels && Array.from(el.labels).some(l => l.contains(n)));
	for (const t of [el, ...Array.from(el.labels || [])]) {
		const r = t.getBoundingClientRect();
		if (r.width < 1 || r.height < 1) continue;
		const x = r.left + r.width / 2, y = r.top + r.height / 2;
		if (hits(el.ownerDocument.elementFromPoint(x, y))) return {x, y};
	}
	return null;
}
