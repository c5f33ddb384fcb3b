// The visible part of the page in document coordinates and the device
// pixel ratio, in one call: what a viewport screenshot needs to plan.
() => {
  const v = visualViewport;
  return {X: v.pageLeft, Y: v.pageTop, W: v.width, H: v.height, DPR: devicePixelRatio};
}
