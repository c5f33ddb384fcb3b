function(wanted, listed) {
	const el = this, opts = Array.from(el.options);
	const label = o => (o.label || o.textContent || '').replace(/\s+/g, ' ').trim();
	const pick = w => opts.find(o => o.value === w) || opts.find(o => label(o) === w.trim()) ||
		opts.find(o => label(o).toLowerCase() === w.trim().toLowerCase());
	const chosen = [];
	for (const w of wanted) {
		const o = pick(w);
		if (!o) return {missing: w, total: opts.length, options: opts.slice(0, listed).map(o => ({value: o.value, label: label(o)}))};
		chosen.push(o);
	}
	el.focus();
	if (el.multiple) for (const o of opts) o.selected = chosen.includes(o);
	else if (chosen.length) chosen[0].selected = true;
	el.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
	el.dispatchEvent(new Event('change', {bubbles: true}));
	return {selected: Array.from(el.selectedOptions).map(o => o.value)};
}
