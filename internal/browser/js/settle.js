() => new Promise(r => requestAnimationFrame(() => setTimeout(() => r(true))))
