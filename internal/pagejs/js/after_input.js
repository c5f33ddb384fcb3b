// Runs right after input. Two task hops, a posted message and then a
// zero-delay timer (after the page's own, queued by the input before it),
// let the page run what the input queued, such as a form submission, and
// put the renderer's events of it ahead of the reply. If the document
// mutated meanwhile the page is still reacting: wait for the next frame
// (at most 100 ms) and one more hop, so that what it changed has
// rendered, as settle.js does.
() => new Promise(r => {
  const hop = f => {
    const c = new MessageChannel();
    c.port1.onmessage = () => { c.port1.close(); f(); };
    c.port2.postMessage(0);
  };
  let changed = false;
  const mo = new MutationObserver(() => { changed = true; });
  mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  hop(() => setTimeout(() => {
    changed = changed || mo.takeRecords().length > 0;
    mo.disconnect();
    if (!changed) { r(false); return; }
    let done = false;
    const end = () => { if (!done) { done = true; hop(() => r(true)); } };
    requestAnimationFrame(end);
    setTimeout(end, 100);
  }));
})
