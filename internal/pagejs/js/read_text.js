function(max) {
	const n = this === globalThis ? document : this;
	let s, field = "", cut = false;
	const visible = (root) => {
		const v = visibleText(root);
		cut = v.cut;
		return v.text;
	};
	if (n.nodeType === 9) {
		const root = n.body || n.documentElement;
		s = root ? visible(root) : "";
	} else if (n.namespaceURI === "http://www.w3.org/1999/xhtml" && n.localName === "input") {
		field = "input";
		if (n.type === "password") return {text: "", chars: 0, truncated: false, field, password: true};
		s = n.type === "checkbox" || n.type === "radio" ? (n.checked ? "checked" : "unchecked") : n.value;
	} else if (n.namespaceURI === "http://www.w3.org/1999/xhtml" && n.localName === "textarea") {
		field = "textarea";
		s = n.value;
	} else if (n.namespaceURI === "http://www.w3.org/1999/xhtml" && n.localName === "select") {
		field = "select";
		s = Array.from(n.selectedOptions, o => o.label).join("\n");
	} else {
		s = typeof n.innerText === "string" ? visible(n) : (n.textContent || "");
	}
	s = String(s ?? "");
	let text = s;
	if (s.length > max) {
		let end = max;
		const c = s.charCodeAt(end - 1);
		if (c >= 0xd800 && c <= 0xdbff) end--;
		text = s.slice(0, end);
	}
	return {text, chars: s.length, truncated: text.length < s.length, field, password: false, unchecked: cut};
}
