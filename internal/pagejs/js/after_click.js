// After a click on this element, what a person would see that no tree or
// event reports:
// - NotSubmitted: when this is a submit button of a form the browser
//   validates and a control of that form is invalid, the browser refused
//   to submit and showed that control's message: its name and message;
// - Download: this is (inside) a link with a download attribute, which
//   downloads without navigating.
function() {
	const b = this;
	if (!b || b.nodeType !== 1 || !b.isConnected) return null;
	const out = {Download: !!b.closest('a[download][href]')};
	if (!b.form || b.form.noValidate || b.formNoValidate) return out;
	if (!b.matches('button[type=submit i], button:not([type]), input[type=submit i], input[type=image i]')) return out;
	const bad = Array.from(b.form.elements).find(e => e.willValidate && !e.validity.valid);
	if (!bad) return out;
	const label = bad.labels && bad.labels.length ? bad.labels[0].innerText : '';
	const name = String(label || bad.getAttribute('aria-label') || bad.placeholder || bad.name || bad.id || bad.type || '').replace(/\s+/g, ' ').trim();
	out.NotSubmitted = {Field: name.slice(0, 100), Message: String(bad.validationMessage || '').slice(0, 200)};
	return out;
}
