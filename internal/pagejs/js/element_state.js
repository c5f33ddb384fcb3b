function() {
	const e = this.nodeType === 1 ? this : this.parentElement;
	if (!e || !e.isConnected) return {Hidden: true};
	const visible = e.checkVisibility ? e.checkVisibility({visibilityProperty: true}) :
		e.getClientRects().length > 0 && getComputedStyle(e).visibility === 'visible';
	return {Hidden: !visible, Disabled: e.matches(':disabled')};
}
