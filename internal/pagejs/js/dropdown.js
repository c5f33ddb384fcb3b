function(label, mode) {
	// this is an ARIA combobox, a listbox, or a button that pops one up.
	// Finds the visible options of its listbox (aria-controls, aria-owns,
	// one inside it, else any visible listbox) and the one labelled label
	// (exactly, else ignoring case). mode "element" returns that option.
	const el = this, doc = el.ownerDocument;
	const role = ((el.getAttribute('role') || '').trim().split(/\s+/)[0] || '').toLowerCase();
	const visible = e => e.checkVisibility ? e.checkVisibility({visibilityProperty: true}) : e.getClientRects().length > 0;
	const byIds = attr => (el.getAttribute(attr) || '').split(/\s+/).filter(Boolean)
		.map(id => doc.getElementById(id)).filter(Boolean);
	let boxes = role === 'listbox' ? [el] : [...byIds('aria-controls'), ...byIds('aria-owns')];
	if (!boxes.length) {
		const inner = el.querySelector('[role=listbox]');
		if (inner) boxes = [inner];
	}
	if (!boxes.length) boxes = [...doc.querySelectorAll('[role=listbox]')].filter(visible);
	const opts = [];
	for (const b of boxes) {
		if (b.getAttribute('role') === 'option' && visible(b)) opts.push(b);
		for (const o of b.querySelectorAll('[role=option]')) if (visible(o)) opts.push(o);
	}
	const name = o => (o.getAttribute('aria-label') || o.textContent || '').replace(/\s+/g, ' ').trim();
	const labels = opts.map(name);
	let i = labels.indexOf(label);
	if (i < 0) {
		const l = label.toLowerCase();
		i = labels.findIndex(x => x.toLowerCase() === l);
	}
	if (mode === 'element') return i >= 0 ? opts[i] : null;
	const value = typeof el.value === 'string' ? el.value : '';
	const shown = (value + ' ' + (el.getAttribute('aria-label') ? '' : el.textContent || '')).replace(/\s+/g, ' ').trim();
	return {
		role, popup: (el.getAttribute('aria-haspopup') || '').toLowerCase(),
		expanded: el.getAttribute('aria-expanded') === 'true',
		labels: labels.slice(0, 10), total: labels.length, index: i,
		selected: i >= 0 && opts[i].getAttribute('aria-selected') === 'true',
		shown,
	};
}
