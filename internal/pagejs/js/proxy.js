// The element a person clicks for a form control that has no box of its
// own (a checkbox of zero size drawn by its label): its first label that
// is rendered with an area, or null.
function() {
	const shown = n => (!n.checkVisibility || n.checkVisibility({visibilityProperty: true})) &&
		Array.from(n.getClientRects()).some(r => r.width * r.height >= 1);
	for (const l of Array.from(this.labels || [])) if (shown(l)) return l;
	return null;
}
