function(maxMs) {
	// Resolves at the first change that can make an element actionable: a
	// DOM mutation, the end of a transition or animation, or failing that
	// after a few frames (layout can move without a mutation) or maxMs.
	return new Promise(resolve => {
		let done = false, frames = 0;
		const kinds = ["transitionend", "transitioncancel", "animationend", "scroll"];
		const finish = () => {
			if (done) return;
			done = true;
			mo.disconnect();
			for (const k of kinds) removeEventListener(k, finish, true);
			resolve(true);
		};
		const mo = new MutationObserver(finish);
		mo.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
		for (const k of kinds) addEventListener(k, finish, true);
		const tick = () => { if (!done && ++frames >= 4) finish(); else if (!done) requestAnimationFrame(tick); };
		requestAnimationFrame(tick);
		setTimeout(finish, maxMs);
	});
}
