// Fill's fast path, in one round trip: when the element is still in its
// document (else stale), rendered and enabled (actionableState) and a
// text field that takes input (fieldInfo), set its value (setValue), then
// wait as afterInput does, for at most wait ms (ran says it finished), so
// that the fill needs no round trip of its own for that. Otherwise it acts
// on nothing and reports what it saw.
function(v, wait) {
  if (!this.isConnected) return {stale: true};
  const st = actionableState.call(this);
  if (st.Hidden || st.Disabled) return {ready: false};
  const field = fieldInfo.call(this);
  if (field.kind !== 'text' || field.disabled || field.readonly) return {ready: true, field};
  const res = {ready: true, field, set: true, same: setValue.call(this, v)};
  return Promise.race([
    afterInput().then(() => true),
    new Promise(r => setTimeout(() => r(false), wait)),
  ]).then(ran => ({...res, ran}));
}
