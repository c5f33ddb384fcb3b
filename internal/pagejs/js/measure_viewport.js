() => ({innerWidth, innerHeight, devicePixelRatio,
	scrollWidth: document.documentElement ? document.documentElement.scrollWidth : 0})
