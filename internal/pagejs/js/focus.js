function() {
	if (typeof this.focus !== 'function') return false;
	const el = this, doc = el.ownerDocument;
	const active = () => {
		let a = doc.activeElement;
		while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
		return a;
	};
	const had = active() === el;
	el.focus();
	const a = active();
	const ok = a === el || el.contains(a) || (!!a && a.getRootNode().host === el);
	if (ok && !had) {
		if (el.isContentEditable) {
			const sel = doc.defaultView.getSelection();
			sel.selectAllChildren(el);
			sel.collapseToEnd();
		} else if (typeof el.value === 'string') {
			try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) {} // email, number: no caret API
		}
	}
	return ok;
}
