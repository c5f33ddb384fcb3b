function (spec, sliceMs) {
  const norm = s => String(s).replace(/\s+/g, ' ').trim().toLowerCase();
  let urlRe = null;
  const re = spec.url && /^\/(.+)\/([dimsuv]*)$/.exec(spec.url);
  if (re) {
    try { urlRe = new RegExp(re[1], re[2]); }
    catch (e) { return { invalid: 'url regular expression: ' + e.message }; }
  }
  if (spec.selector) {
    try { document.querySelector(spec.selector); }
    catch (e) { return { invalid: 'selector ' + JSON.stringify(spec.selector) + ' does not parse' }; }
  }
  const visible = el => {
    if (!el || !el.isConnected) return false;
    const r = el.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    return el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : getComputedStyle(el).visibility !== 'hidden';
  };
  const check = () => {
    const missing = [];
    let text = null;
    const pageText = () => text ??= norm(document.body ? document.body.innerText : '');
    if (spec.texts) {
      for (const t of spec.texts) if (pageText().includes(norm(t))) return { matched: { text: t } };
      missing.push('none of the texts ' + JSON.stringify(spec.texts) + ' appeared');
    }
    if (spec.textGone) {
      if (!pageText().includes(norm(spec.textGone))) return { matched: { textGone: spec.textGone } };
      missing.push('text ' + JSON.stringify(spec.textGone) + ' is still there');
    }
    if (spec.selector) {
      const el = document.querySelector(spec.selector);
      const ok = { visible: visible(el), hidden: !visible(el), attached: !!el, detached: !el }[spec.state];
      if (ok) return { matched: { selector: spec.selector, state: spec.state } };
      const now = !el ? 'matches nothing' : visible(el) ? 'is visible' : 'is hidden';
      missing.push(JSON.stringify(spec.selector) + ' is not ' + spec.state + ' (it ' + now + ')');
    }
    if (spec.url) {
      const u = location.href;
      if (urlRe ? urlRe.test(u) : u.includes(spec.url)) return { matched: { url: u } };
      missing.push('the URL ' + JSON.stringify(u) + ' does not match ' + JSON.stringify(spec.url));
    }
    return { missing };
  };
  const first = check();
  if (first.matched) return first;
  return new Promise(resolve => {
    let last = first, done = false, pending = 0, lastRun = 0;
    const run = () => {
      pending = 0;
      if (done) return;
      lastRun = performance.now();
      last = check();
      if (last.matched) finish();
    };
    const onChange = () => {
      if (done || pending) return;
      const wait = 30 - (performance.now() - lastRun);
      if (wait <= 0) run(); else pending = setTimeout(run, wait);
    };
    const observer = new MutationObserver(onChange);
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const poll = setInterval(run, 100);
    const end = setTimeout(() => finish(), sliceMs);
    function finish() {
      done = true;
      observer.disconnect();
      clearInterval(poll);
      clearTimeout(end);
      clearTimeout(pending);
      resolve(last);
    }
  });
}
