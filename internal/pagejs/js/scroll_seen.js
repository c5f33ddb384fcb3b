// Resolves once the page's IntersectionObservers (and scroll listeners)
// have seen a scroll: they learn of it in the next rendering update, which
// also makes this observer's first entry, delivered with theirs; a task
// hop after it lets their callbacks run first. If they changed the
// document (a feed appended stories), one more update lets them see the
// new layout (the feed's end out of view again), so that the next scroll
// is a change they notice. A hidden page renders nothing, so there it
// resolves at once.
() => new Promise(r => {
  if (document.visibilityState === 'hidden') { r(false); return; }
  let changed = false;
  const mo = new MutationObserver(() => { changed = true; });
  mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  const update = then => {
    const io = new IntersectionObserver(() => {
      io.disconnect();
      setTimeout(then);
    });
    io.observe(document.documentElement);
  };
  update(() => {
    changed = changed || mo.takeRecords().length > 0;
    mo.disconnect();
    if (!changed) { r(false); return; }
    update(() => r(true));
  });
})
