function(scope, maxNodes) {
	// An accessibility-ish walk of the DOM for Firefox, where no
	// accessibility tree is reachable over WebDriver BiDi: roles from ARIA
	// and HTML semantics, names from the usual sources. Each node is
	// {r: role, n: name, …, k: index into els, w: index into wins, c:
	// children}; els are the elements, returned as nodes so that cdpkit
	// gets their shared ids; wins are the frames' windows, which BiDi
	// returns as their browsing contexts, walked by cdpkit in turn (so that
	// cross-origin frames are walked too, and their nodes get refs).
	const els = [], wins = [];
	let count = 0;
	const norm = s => String(s || '').replace(/\s+/g, ' ').trim();
	const text = el => norm(el.innerText !== undefined ? el.innerText : el.textContent);
	// flat is an element's text along the flat tree, slotted nodes and
	// shadow roots included, for what innerText leaves out (a label in a
	// shadow root whose text is slotted in).
	const flat = el => {
		const out = [];
		const visit = node => {
			if (node.nodeType === 3) { out.push(node.data); return; }
			if (node.nodeType !== 1 || ['script', 'style', 'template'].includes(node.localName)) return;
			let kids = node.shadowRoot ? node.shadowRoot.childNodes : node.childNodes;
			if (node.localName === 'slot') {
				const assigned = node.assignedNodes({flatten: true});
				if (assigned.length) kids = assigned;
			}
			for (const k of kids) visit(k);
		};
		visit(el);
		return norm(out.join(' '));
	};
	const label = el => text(el) || flat(el);
	// Ids resolve in the element's own tree: a shadow root's labels name
	// the controls of the same shadow root.
	const byIds = (el, ids) => {
		const root = el.getRootNode();
		const find = id => (root.getElementById ? root.getElementById(id) : document.getElementById(id));
		return ids.split(/\s+/).map(find).filter(Boolean).map(label).join(' ');
	};
	const hidden = el => {
		if (el.getAttribute('aria-hidden') === 'true' || el.hidden) return true;
		if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true})) {
			// display: contents elements report invisible but show children.
			return getComputedStyle(el).display !== 'contents';
		}
		return false;
	};
	const inputRole = el => {
		const t = (el.getAttribute('type') || 'text').toLowerCase();
		switch (t) {
		case 'button': case 'submit': case 'reset': case 'image': case 'file': return 'button';
		case 'checkbox': return 'checkbox';
		case 'radio': return 'radio';
		case 'range': return 'slider';
		case 'number': return 'spinbutton';
		case 'search': return el.list ? 'combobox' : 'searchbox';
		case 'hidden': return '';
		case 'color': return 'ColorWell';
		}
		return el.list ? 'combobox' : 'textbox';
	};
	const landmark = (el, role) => el.closest('article, aside, main, nav, section') ? 'generic' : role;
	const roleOf = el => {
		const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
		if (explicit) return explicit;
		switch (el.localName) {
		case 'a': case 'area': return el.hasAttribute('href') ? 'link' : 'generic';
		case 'button': return 'button';
		case 'summary': return 'DisclosureTriangle';
		case 'input': return inputRole(el);
		case 'textarea': return 'textbox';
		case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
		case 'option': return 'option';
		case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
		case 'nav': return 'navigation';
		case 'main': return 'main';
		case 'header': return landmark(el, 'banner');
		case 'footer': return landmark(el, 'contentinfo');
		case 'aside': return 'complementary';
		case 'form': return 'form';
		case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : 'generic';
		case 'article': return 'article';
		case 'ul': case 'ol': case 'menu': return 'list';
		case 'li': return 'listitem';
		case 'table': return 'table';
		case 'tr': return 'row';
		case 'td': return 'cell';
		case 'th': return el.scope === 'row' ? 'rowheader' : 'columnheader';
		case 'img': return el.getAttribute('alt') === '' ? 'none' : 'img';
		case 'figure': return 'figure';
		case 'dialog': return 'dialog';
		case 'iframe': return 'Iframe';
		case 'p': return 'paragraph';
		case 'progress': return 'progressbar';
		case 'meter': return 'meter';
		case 'fieldset': case 'details': case 'optgroup': return 'group';
		case 'label': return 'LabelText';
		case 'hr': return 'separator';
		}
		return 'generic';
	};
	const fromContent = new Set(['button', 'link', 'heading', 'cell', 'columnheader', 'rowheader', 'option',
		'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'treeitem', 'DisclosureTriangle', 'checkbox', 'radio', 'switch']);
	const nameOf = (el, role) => {
		const lb = el.getAttribute('aria-labelledby');
		if (lb) { const s = byIds(el, lb); if (s) return s; }
		const al = norm(el.getAttribute('aria-label'));
		if (al) return al;
		if (el.labels && el.labels.length) {
			const s = Array.from(el.labels, label).join(' ');
			if (s) return s;
		}
		if (el.localName === 'input') {
			const t = (el.type || '').toLowerCase();
			if (t === 'submit' || t === 'reset' || t === 'button') return el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : '');
			if (t === 'image') return el.alt || 'Submit';
		}
		if (el.localName === 'img' || el.localName === 'area') { if (el.alt) return norm(el.alt); }
		if (el.localName === 'fieldset') { const l = el.querySelector(':scope > legend'); if (l) return text(l); }
		if (el.localName === 'table') { const c = el.querySelector(':scope > caption'); if (c) return text(c); }
		if (el.localName === 'figure') { const c = el.querySelector(':scope > figcaption'); if (c) return text(c); }
		if (el.localName === 'optgroup') return norm(el.label);
		if (fromContent.has(role) && !(el.localName === 'input')) { const s = text(el); if (s) return s; }
		if (el.title) return norm(el.title);
		if (el.placeholder) return norm(el.placeholder);
		return '';
	};
	const rangeRoles = new Set(['slider', 'spinbutton', 'scrollbar', 'progressbar', 'meter']);
	const interactive = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox',
		'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider', 'spinbutton', 'treeitem',
		'DisclosureTriangle', 'ColorWell']);
	// Tags that act by themselves or pass clicks on (a label to its
	// control), and the document's own boxes.
	const native = new Set(['a', 'button', 'input', 'select', 'textarea', 'option', 'optgroup', 'label', 'summary',
		'iframe', 'frame', 'video', 'audio', 'html', 'body']);
	const pointers = new Set(['pointer', 'grab', 'move']);
	// clickReason tells, as far as a page can see (listeners added with
	// addEventListener cannot be), whether a person would click el: an
	// onclick, tabindex >= 0, the root of a contenteditable region,
	// draggable, or a pointer cursor of its own.
	const clickReason = el => {
		if (el.hasAttribute('onclick') || typeof el.onclick === 'function') return true;
		const ti = el.getAttribute('tabindex');
		if (ti !== null && parseInt(ti, 10) >= 0) return true;
		if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
		if (el.getAttribute('draggable') === 'true') return true;
		const cursor = getComputedStyle(el).cursor;
		if (!pointers.has(cursor)) return false;
		const p = el.parentElement || (el.parentNode && el.parentNode.host);
		return !p || getComputedStyle(p).cursor !== cursor;
	};
	// settle keeps a clickable mark only on an element holding at most one
	// actionable descendant: one holding more is a container delegating
	// events (a list with one listener for its rows). It returns the
	// actionable nodes in n's subtree and drops the walk's scratch marks.
	const settle = n => {
		let inside = 0;
		for (const c of n.c || []) inside += settle(c);
		const self = n.a ? 1 : 0;
		delete n.a;
		if (n.cl && inside > 1) delete n.cl;
		return inside + self;
	};
	const walkChildren = (parent, into) => {
		let kids = parent.shadowRoot ? parent.shadowRoot.childNodes : parent.childNodes;
		if (parent.localName === 'slot') {
			const assigned = parent.assignedNodes({flatten: true});
			if (assigned.length) kids = assigned;
		}
		for (const k of kids) {
			const n = walk(k);
			if (n) into.push(n);
		}
	};
	const walk = node => {
		if (++count > maxNodes) return null;
		if (node.nodeType === 3) {
			// Spaces at the ends stay (collapsed): the text may run on
			// into an inline element's ("and <b>go</b>").
			const s = String(node.data).replace(/\s+/g, ' ');
			return s.trim() ? {r: 'StaticText', n: s} : null;
		}
		if (node.nodeType !== 1) return null;
		const el = node;
		if (['script', 'style', 'noscript', 'template', 'head', 'title', 'meta', 'link'].includes(el.localName)) return null;
		// A closed select's options are not rendered but are its choices.
		if (!(el.localName === 'option' || el.localName === 'optgroup') && hidden(el)) return null;
		const role = roleOf(el);
		if (role === '') return null;
		const n = {r: role};
		// An inline wrapper (a <span>, <b>) continues the line of text it
		// is in, as Chromium's tree leaves it out; a generic box starts one.
		if (role === 'generic' && getComputedStyle(el).display === 'inline') n.r = 'none';
		const name = nameOf(el, role);
		if (name) n.n = name;
		n.k = els.length; els.push(el);
		if (role === 'heading') {
			const lv = parseInt(el.getAttribute('aria-level') || el.localName.slice(1), 10);
			if (lv > 0) n.l = lv;
		}
		const tag = el.localName;
		if (tag === 'input' || tag === 'textarea') {
			const t = (el.type || '').toLowerCase();
			if (t === 'password') n.p = 1;
			if (t === 'checkbox' || t === 'radio') n.ck = el.indeterminate ? 'mixed' : String(el.checked);
			else if (el.value) n.v = el.value;
			if (el.required) n.rq = 1;
			if (el.readOnly) n.ro = 1;
		} else if (tag === 'select') {
			n.v = Array.from(el.selectedOptions, o => o.label).join(', ');
			if (el.required) n.rq = 1;
		} else if (tag === 'option') {
			if (el.selected) n.s = 1;
		}
		if (!n.v && rangeRoles.has(role)) {
			const v = norm(el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow'));
			if (v) n.v = v;
		}
		if (el.tabIndex >= 0) n.fo = 1;
		if (!interactive.has(role) && !native.has(tag) && clickReason(el)) n.cl = 1;
		if (interactive.has(role) || native.has(tag) || tag === 'li' || tag === 'tr' || n.cl) n.a = 1;
		const ac = el.getAttribute('aria-checked');
		if (ac) n.ck = ac;
		if (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true') n.d = 1;
		const ae = el.getAttribute('aria-expanded');
		if (ae === 'true' || (tag === 'summary' && el.parentElement && el.parentElement.open)) n.e = 1;
		if (el.getAttribute('aria-selected') === 'true') n.s = 1;
		if (document.activeElement === el) n.f = 1;
		if (role === 'link' && el.href) n.u = String(el.href);
		const c = [];
		if (tag === 'iframe' || tag === 'frame') {
			if (el.contentWindow) { n.w = wins.length; wins.push(el.contentWindow); }
		} else if (!(tag === 'input' || tag === 'textarea')) {
			walkChildren(el, c);
		}
		if (c.length) n.c = c;
		return n;
	};
	let root;
	if (scope) {
		root = walk(scope);
	} else {
		const body = document.body || document.documentElement;
		const c = [];
		if (body) walkChildren(body, c);
		root = {r: 'RootWebArea', n: norm(document.title), c};
	}
	if (root) settle(root);
	return [JSON.stringify({root, more: count > maxNodes, els: els.length}), ...els, ...wins];
}
