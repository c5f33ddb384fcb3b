(x, y) => {
	scrollTo({left: x ?? scrollX, top: y ?? scrollY, behavior: 'instant'});
	return scrollReport(null);
}
