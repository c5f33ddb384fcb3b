() => ({url: location.href, title: document.title, readyState: document.readyState})
