function (value, limits) {
  const { depth: maxDepth, items: maxItems, chars: maxChars } = limits;
  const tag = v => Object.prototype.toString.call(v).slice(8, -1);
  let budget = maxChars, truncated = false;
  const path = [];
  const cut = s => {
    if (s.length <= budget) return s;
    truncated = true;
    return s.slice(0, Math.max(0, budget)) + '…[' + (s.length - Math.max(0, budget)) + ' more chars]';
  };
  const node = n => {
    switch (n.nodeType) {
      case 1: {
        let s = '<' + String(n.localName || n.nodeName).toLowerCase();
        if (n.id) s += '#' + n.id;
        const cls = String(n.getAttribute && n.getAttribute('class') || '').trim().split(/\s+/).filter(Boolean);
        for (const c of cls.slice(0, 3)) s += '.' + c;
        if (cls.length > 3) s += '…';
        return s + (n.isConnected ? '>' : '> (detached)');
      }
      case 3: {
        const t = n.data.length > 40 ? n.data.slice(0, 40) + '…' : n.data;
        return '#text ' + JSON.stringify(t);
      }
      case 8: return '<!--comment-->';
      case 9: return '#document ' + n.URL;
      case 10: return '<!doctype ' + n.name + '>';
      case 11: return n.host ? '#shadow-root of ' + node(n.host) : '#document-fragment';
    }
    return String(n.nodeName);
  };
  const isNode = v => { try { return typeof v.nodeType === 'number' && typeof v.nodeName === 'string' && typeof v.cloneNode === 'function'; } catch { return false; } };
  const isWindow = v => { try { return v === v.window && v.self === v; } catch { return true; } };
  const ser = (v, depth) => {
    if (budget <= 0) { truncated = true; return '[…]'; }
    switch (typeof v) {
      case 'undefined': budget -= 13; return '[undefined]';
      case 'boolean': budget -= 5; return v;
      case 'number':
        if (Number.isNaN(v)) { budget -= 7; return '[NaN]'; }
        if (!Number.isFinite(v)) { budget -= 12; return v > 0 ? '[Infinity]' : '[-Infinity]'; }
        budget -= String(v).length; return v;
      case 'bigint': { const s = String(v) + 'n'; budget -= s.length + 2; return s; }
      case 'string': { const s = cut(v); budget -= s.length + 2; return s; }
      case 'symbol': { const s = '[' + String(v) + ']'; budget -= s.length + 2; return s; }
      case 'function': { const s = '[Function ' + (v.name || 'anonymous') + ']'; budget -= s.length + 2; return s; }
    }
    if (v === null) { budget -= 4; return null; }
    if (path.includes(v)) { budget -= 12; return '[Circular]'; }
    let simple;
    try {
      if (isWindow(v)) { let u = ''; try { u = ' ' + v.location.href; } catch {} simple = '[Window' + u + ']'; }
      else if (isNode(v)) simple = node(v);
      else switch (tag(v)) {
        case 'Date': simple = isNaN(v) ? '[Date Invalid]' : '[Date ' + Date.prototype.toISOString.call(v) + ']'; break;
        case 'Error': case 'DOMException': simple = '[' + (v.name || 'Error') + ': ' + v.message + ']'; break;
        case 'RegExp': simple = '[RegExp ' + String(v) + ']'; break;
        case 'Promise': simple = '[Promise]'; break;
        case 'WeakMap': case 'WeakSet': case 'WeakRef': simple = '[' + tag(v) + ']'; break;
        case 'ArrayBuffer': case 'SharedArrayBuffer': simple = '[' + tag(v) + ' ' + v.byteLength + ' bytes]'; break;
        case 'URL': simple = '[URL ' + v.href + ']'; break;
      }
    } catch (e) { simple = '[Unreadable: ' + (e && e.message) + ']'; }
    if (simple !== undefined) { const s = cut(simple); budget -= s.length + 2; return s; }
    const kind = tag(v);
    const listLike = Array.isArray(v) || (ArrayBuffer.isView(v) && kind !== 'DataView') ||
      kind === 'NodeList' || kind === 'HTMLCollection' || kind === 'Arguments';
    if (depth >= maxDepth) {
      truncated = true;
      const s = listLike ? '[' + kind + '(' + v.length + ')]' : kind === 'Map' || kind === 'Set' ? '[' + kind + '(' + v.size + ')]' : '[Object]';
      budget -= s.length + 2;
      return s;
    }
    path.push(v);
    try {
      budget -= 2;
      if (listLike) {
        const out = [], n = v.length;
        for (let i = 0; i < n && i < maxItems && budget > 0; i++) { out.push(ser(v[i], depth + 1)); budget -= 1; }
        if (out.length < n) { truncated = true; out.push('[… ' + (n - out.length) + ' more]'); }
        return out;
      }
      if (kind === 'Set') {
        const out = [];
        for (const x of v) { if (out.length >= maxItems || budget <= 0) break; out.push(ser(x, depth + 1)); budget -= 1; }
        if (out.length < v.size) { truncated = true; out.push('[… ' + (v.size - out.length) + ' more]'); }
        return { '[Set]': out };
      }
      if (kind === 'Map') {
        const entries = [];
        for (const e of v) { if (entries.length >= maxItems || budget <= 0) break; entries.push(e); }
        const more = v.size - entries.length;
        if (more > 0) truncated = true;
        if (entries.every(([k]) => typeof k === 'string')) {
          const out = {};
          for (const [k, x] of entries) { budget -= cut(k).length + 4; out[k] = ser(x, depth + 1); }
          if (more > 0) out['…'] = more + ' more entries';
          return { '[Map]': out };
        }
        const out = entries.map(([k, x]) => { budget -= 4; return [ser(k, depth + 2), ser(x, depth + 2)]; });
        if (more > 0) out.push('[… ' + more + ' more]');
        return { '[Map]': out };
      }
      let keys;
      try { keys = Object.keys(v); } catch (e) { return '[Unreadable: ' + (e && e.message) + ']'; }
      const out = {};
      let shown = 0;
      for (const k of keys) {
        if (shown >= maxItems || budget <= 0) break;
        budget -= k.length + 4;
        let x;
        try { x = ser(v[k], depth + 1); } catch (e) { x = '[Thrown: ' + (e && e.message) + ']'; }
        out[k] = x;
        shown++;
      }
      if (shown < keys.length) { truncated = true; out['…'] = (keys.length - shown) + ' more keys'; }
      return out;
    } finally {
      path.pop();
    }
  };
  let out = ser(value, 0);
  let json = JSON.stringify(out);
  if (json === undefined) json = 'null';
  if (json.length > maxChars + 1024) {
    truncated = true;
    json = JSON.stringify(json.slice(0, maxChars) + '…');
  }
  return { json, truncated };
}
