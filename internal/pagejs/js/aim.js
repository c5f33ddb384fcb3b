// The fast path of freePoint, for an element of the page's top document:
// it returns a point of the element (viewport CSS pixels) where a pointer
// hits it, or null when any check fails or the case is one it leaves to
// the slow path (which says why): a text node, a frame's document, pinch
// zoom, an element not rendered, disabled (with enabled), not wholly in
// the viewport, of several boxes or transformed, still moving across a
// frame, or covered. Points are tried as clickPoints orders them.
function(enabled) {
  const e = this;
  if (e.nodeType !== 1 || !e.isConnected || window !== window.top) return null;
  const vv = window.visualViewport;
  if (vv && (vv.scale !== 1 || vv.offsetLeft !== 0 || vv.offsetTop !== 0)) return null;
  if (!e.checkVisibility || !e.checkVisibility({visibilityProperty: true})) return null;
  if (enabled && e.matches(':disabled')) return null;
  // Moved by a transform (even a translation, which keeps its size) or
  // animating: the slow path waits for it to come to rest.
  if (getComputedStyle(e).transform !== 'none' || (e.getAnimations && e.getAnimations().length)) return null;
  const root = document.compatMode === 'BackCompat' ? document.body : document.documentElement;
  if (!root) return null;
  const vw = root.clientWidth, vh = root.clientHeight;
  const box = () => {
    const rs = e.getClientRects();
    if (rs.length !== 1) return null;
    const r = rs[0];
    if (r.width * r.height < 1 || r.left < 0 || r.top < 0 || r.right > vw || r.bottom > vh) return null;
    // A box of another size than the layout's is turned or scaled.
    if (typeof e.offsetWidth !== 'number' || Math.abs(r.width - e.offsetWidth) >= 1 || Math.abs(r.height - e.offsetHeight) >= 1) return null;
    return r;
  };
  const first = box();
  if (!first) return null;
  const up = p => p.parentNode || (p.nodeType === 11 ? p.host : null);
  const within = (a, n) => { for (let p = n; p; p = up(p)) if (p === a) return true; return false; };
  // A hit on e, its shadow host or its shadow tree, or a label passing
  // clicks to e is a hit on e (as hit_test.js).
  const root = e.getRootNode();
  const holds = n => {
    if (within(e, n)) return true;
    if (root.nodeType === 11 && root.host && (n === root.host || within(root, n))) return true;
    for (let p = n; p; p = up(p)) if (p.localName === 'label' && (p.control === e || within(p, e))) return true;
    return false;
  };
  return new Promise(resolve => {
    let done = false;
    const look = () => {
      if (done) return;
      done = true;
      const r = box();
      if (!r || Math.abs(r.left - first.left) > 0.01 || Math.abs(r.top - first.top) > 0.01 ||
          Math.abs(r.width - first.width) > 0.01 || Math.abs(r.height - first.height) > 0.01) {
        resolve(null);
        return;
      }
      for (const [u, v] of [[0.5, 0.5], [0.25, 0.25], [0.75, 0.25], [0.25, 0.75], [0.75, 0.75]]) {
        const x = Math.floor(r.left + r.width * u), y = Math.floor(r.top + r.height * v);
        if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
        let h = document.elementFromPoint(x, y);
        while (h && h.shadowRoot) {
          const inner = h.shadowRoot.elementFromPoint(x, y);
          if (!inner || inner === h) break;
          h = inner;
        }
        if (h && holds(h)) { resolve({X: x, Y: y}); return; }
      }
      resolve(null);
    };
    requestAnimationFrame(look);
    setTimeout(look, 100);
  });
}
