// Runs on keys_watch.js's watcher after the key events: stops it and
// reports whether the document mutated meanwhile.
function() {
  const changed = this.changed || this.mo.takeRecords().length > 0;
  this.mo.disconnect();
  return changed;
}
