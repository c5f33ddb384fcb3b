() => devicePixelRatio
