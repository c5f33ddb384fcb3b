function(button, double, mods) {
	const e = this.nodeType === 1 ? this : this.parentElement;
	const init = {bubbles: true, cancelable: true, composed: true, view: e.ownerDocument.defaultView, button, detail: 1,
		altKey: !!(mods & 1), ctrlKey: !!(mods & 2), metaKey: !!(mods & 4), shiftKey: !!(mods & 8)};
	if (button === 2) { e.dispatchEvent(new MouseEvent('contextmenu', init)); return; }
	if (button === 1) { e.dispatchEvent(new MouseEvent('auxclick', init)); return; }
	const click = () => mods ? e.dispatchEvent(new MouseEvent('click', init)) : e.click();
	click();
	if (double) {
		init.detail = 2;
		click();
		e.dispatchEvent(new MouseEvent('dblclick', init));
	}
}
