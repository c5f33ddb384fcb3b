function() {
	this.focus();
	const sel = this.ownerDocument.defaultView.getSelection();
	const r = this.ownerDocument.createRange();
	r.selectNodeContents(this);
	sel.removeAllRanges();
	sel.addRange(r);
	return true;
}
