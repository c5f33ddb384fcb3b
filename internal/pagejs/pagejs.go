// Package pagejs holds the JavaScript cdpkit runs in pages, one function
// expression a file under js/, shared by both backends: Chromium calls
// them through Runtime.callFunctionOn, Firefox through WebDriver BiDi's
// script.callFunction. Values reach them as arguments, never spliced into
// their source.
package pagejs

import (
	"embed"
	"fmt"
)

// Files are the page scripts, js/NAME.js.
//
//go:embed js/*.js
var Files embed.FS

// Script returns the source of js/name.js, a function expression.
func Script(name string) (string, error) {
	b, err := Files.ReadFile("js/" + name + ".js")
	if err != nil {
		return "", fmt.Errorf("pagejs: page script %s: %w", name, err)
	}
	return string(b), nil
}

// HiddenTextPrelude returns the page-side definitions of the hidden-text
// filter (hiddenRoots and visibleText) that js/read_text.js expects, to
// put before it. Run them where the page cannot reach (an isolated world,
// a sandbox).
func HiddenTextPrelude() string { return HiddenJS }

// HiddenJS defines hiddenRoots(root): {out, cutoff, partial}, the
// top-most nodes under root a user cannot see (elements, and text nodes
// set in a zero font size), whether the walk stopped short and the first
// rendered element it did not check (null when none); and
// visibleText(root): {text, cut}, root's innerText without them (and
// without what was not checked), and whether the walk stopped short.
const HiddenJS = `
const hiddenChecks = 50000, hiddenLimit = 2000;
const hiddenRoots = (root) => {
	// cutoff is the first element not checked, partial whether there is one.
	const out = [], sx = window.scrollX, sy = window.scrollY;
	let checked = 0, cutoff = null;
	const nothing = (v, size) => {
		// A length of a clip-path's inset: all of size or more.
		if (v.endsWith("%")) return parseFloat(v) >= 100;
		return parseFloat(v) >= size;
	};
	const clipped = (cs, r) => {
		if (r.width <= 1 && r.height <= 1) return false; // screen-reader-only
		const c = cs.clipPath;
		let m = /^inset\(([^)]*)\)/.exec(c);
		if (m) {
			const v = m[1].split(" round")[0].trim().split(/\s+/);
			const [t, rt = t, b = t, l = rt] = v;
			const sum = (p, q, size) => (p.endsWith("%") && q.endsWith("%")) ? parseFloat(p) + parseFloat(q) >= 100 :
				nothing(p, size) || nothing(q, size) || (!p.endsWith("%") && !q.endsWith("%") && parseFloat(p) + parseFloat(q) >= size);
			if (sum(t, b, r.height) || sum(l, rt, r.width)) return true;
		}
		if (/^(circle|ellipse)\(\s*0(px|%)?[\s)]/.test(c) || /^ellipse\(\s*[^\s)]+\s+0(px|%)?[\s)]/.test(c)) return true;
		if ((cs.position === "absolute" || cs.position === "fixed") && /^rect\(0px,? 0px,? 0px,? 0px\)$/.test(cs.clip)) return true;
		return false;
	};
	const flat = (t) => {
		// A transform that maps the box to a line or a point (scale(0),
		// scaleX(0)): its 2D part has no area.
		const m = /^matrix(3d)?\(([^)]*)\)/.exec(t);
		if (!m) return false;
		const v = m[2].split(",").map(Number);
		const [a, b, c, d] = m[1] ? [v[0], v[1], v[4], v[5]] : v;
		return Math.abs(a * d - b * c) < 1e-9;
	};
	const hidden = (el, cs) => {
		if (el.getAttribute("aria-hidden") === "true") return true;
		if (cs.display === "contents") return false;
		const r = el.getBoundingClientRect();
		if ((r.width === 0 && cs.overflowX !== "visible") || (r.height === 0 && cs.overflowY !== "visible")) return true;
		if (cs.transform !== "none" && flat(cs.transform)) return true; // scale(0) shrinks the content too
		if (cs.clipPath !== "none" || cs.clip !== "auto") {
			if (clipped(cs, r)) return true;
		}
		if (r.width === 0 || r.height === 0) return false;
		const x = cs.position === "fixed" ? 0 : sx, y = cs.position === "fixed" ? 0 : sy;
		return r.right + x <= 0 || r.bottom + y <= 0;
	};
	const visit = (el) => {
		if (cutoff) return;
		if (++checked > hiddenChecks || out.length >= hiddenLimit) { cutoff = el; return; }
		const cs = getComputedStyle(el);
		if (cs.display === "none") return; // neither in the tree nor in innerText
		if (hidden(el, cs)) { out.push(el); return; }
		if (parseFloat(cs.fontSize) === 0) {
			for (const n of el.childNodes) if (n.nodeType === 3 && n.data.trim()) out.push(n);
		}
		if (el.shadowRoot) for (const c of el.shadowRoot.children) visit(c);
		for (const c of el.children) visit(c);
	};
	for (const c of root.children) visit(c);
	const partial = cutoff !== null;
	if (partial) {
		// The first element from the cutoff on that is rendered (and so
		// in the accessibility tree): what follows it is left out.
		const tw = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
		tw.currentNode = cutoff;
		let e = cutoff;
		for (let i = 0; e && e.getClientRects().length === 0 && i < 10000; i++) e = tw.nextNode();
		cutoff = e && e.getClientRects().length > 0 ? e : null;
	}
	return {out, cutoff, partial};
};
const visibleText = (root) => {
	let s = root.innerText, at = 0;
	const {out, cutoff, partial} = hiddenRoots(root);
	if (partial && cutoff) {
		// What was not checked is left out: the text from the first word
		// of the cutoff's text (or the text after it) on, or, if no such
		// word shows, all of it. Nothing rendered follows a null cutoff.
		let i = -1;
		const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
		if (cutoff) tw.currentNode = cutoff;
		for (let n = cutoff ? tw.nextNode() : null, tries = 0; n && i < 0 && tries < 1000; n = tw.nextNode(), tries++) {
			const w = n.data.trim().split(/\s+/)[0];
			if (w) i = s.indexOf(w);
		}
		s = i < 0 ? "" : s.slice(0, i);
	}
	for (const h of out) {
		let t;
		if (h.nodeType === 3) {
			t = h.data.trim();
		} else {
			if (h.getClientRects().length === 0) continue; // not rendered: not in innerText
			t = h.innerText.trim();
		}
		if (!t) continue;
		const i = s.indexOf(t, at);
		if (i < 0) continue;
		s = s.slice(0, i) + s.slice(i + t.length);
		at = i;
	}
	return {text: s.replace(/\n{3,}/g, "\n\n").trim(), cut: partial};
};
`
