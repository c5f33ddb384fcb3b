function() {
	const el = this, tag = el.localName || '', type = (el.type || '').toLowerCase();
	const out = {kind: 'none', tag, type, disabled: false, readonly: false, checked: !!el.checked, multiple: !!el.multiple};
	if (tag === 'select') out.kind = 'select';
	else if (tag === 'textarea') out.kind = 'text';
	else if (tag === 'input') {
		if (type === 'checkbox' || type === 'radio' || type === 'file') out.kind = type;
		else if (!['button', 'submit', 'reset', 'image', 'hidden'].includes(type)) out.kind = 'text';
	} else if (el.isContentEditable) out.kind = 'editable';
	if (out.kind !== 'none' && out.kind !== 'editable') {
		out.disabled = el.matches(':disabled');
		out.readonly = out.kind === 'text' && el.readOnly;
	}
	return out;
}
