// Runs before key events: watches the document for mutations until
// keys_changed.js asks. Returned as a handle, so the page sees no global.
() => {
  const w = {changed: false};
  w.mo = new MutationObserver(() => { w.changed = true; });
  w.mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  return w;
}
