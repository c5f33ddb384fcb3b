// Settles on change: one task runs (the page's zero-delay timers queued
// before it run first); if the document mutated meanwhile, the page is
// still reacting, so wait for the next frame and one more task to see it
// rendered. A quiet page costs one task, not a frame.
() => new Promise(r => {
  let changed = false;
  const mo = new MutationObserver(() => { changed = true; });
  mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  setTimeout(() => {
    mo.disconnect();
    if (!changed) { r(false); return; }
    requestAnimationFrame(() => setTimeout(() => r(true)));
  });
})
