console.log("loaded", 42, true, null, undefined, {a: 1, b: "x"}, [1, 2, 3]);
console.info("%s has %d items", "cart", 3.7);
console.warn("careful");
console.error(new Error("boom"));
console.debug("details");
function explode() {
  null.x;
}
window.addEventListener("load", () => { document.title = "Console page loaded"; });
explode();
