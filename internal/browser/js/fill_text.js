// Fill's fast path, in one round trip: when the element is rendered and
// enabled (actionableState) and a text field that takes input
// (fieldInfo), set its value (setValue). Otherwise it acts on nothing and
// reports what it saw.
function(v) {
  const st = actionableState.call(this);
  if (st.Hidden || st.Disabled) return {ready: false};
  const field = fieldInfo.call(this);
  if (field.kind !== 'text' || field.disabled || field.readonly) return {ready: true, field};
  return {ready: true, field, set: true, same: setValue.call(this, v)};
}
