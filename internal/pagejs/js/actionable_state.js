function() {
	const e = this.nodeType === 1 ? this : this.parentElement;
	if (!e || !e.isConnected) return {Hidden: true};
	const visible = e.checkVisibility ? e.checkVisibility({visibilityProperty: true}) :
		e.getClientRects().length > 0 && getComputedStyle(e).visibility === 'visible';
	// Checkboxes, radios and file inputs are often hidden behind a styled
	// label; the action reaches them anyway.
	const behindLabel = e.tagName === 'INPUT' && /^(checkbox|radio|file)$/i.test(e.type);
	return {Hidden: !visible && !behindLabel, Disabled: e.matches(':disabled') || e.getAttribute('aria-disabled') === 'true'};
}
