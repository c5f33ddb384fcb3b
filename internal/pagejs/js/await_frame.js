() => new Promise(r => { requestAnimationFrame(() => r(0)); setTimeout(() => r(0), 100); })
