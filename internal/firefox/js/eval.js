async function(fnSource, spec, limits, serialize, ...nodes) {
	// Runs the agent's function with its arguments (JSON values, or nodes
	// passed as shared references) and serializes what it returns within
	// limits, with the same serializer as on Chromium.
	const fn = (0, eval)('(' + fnSource + ')');
	if (typeof fn !== 'function') throw new TypeError('the function does not evaluate to a function');
	const args = spec.map(a => 'node' in a ? nodes[a.node] : a.value);
	const value = await fn(...args);
	return serialize(value, limits);
}
