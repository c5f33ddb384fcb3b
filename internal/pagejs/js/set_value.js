function(v) {
	const el = this;
	el.focus();
	const proto = el.localName === 'textarea' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
	Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, v);
	el.dispatchEvent(new InputEvent('input', {bubbles: true, composed: true, inputType: 'insertReplacementText'}));
	el.dispatchEvent(new Event('change', {bubbles: true}));
	return el.value === v;
}
