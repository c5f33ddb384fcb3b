package browser

import "fmt"

// PageScript returns the source of js/name.js, a function expression, for
// another backend that runs the same page-side helpers (Firefox calls them
// through WebDriver BiDi's script.callFunction).
func PageScript(name string) (string, error) {
	b, err := jsFiles.ReadFile("js/" + name + ".js")
	if err != nil {
		return "", fmt.Errorf("browser: page script %s: %w", name, err)
	}
	return string(b), nil
}

// HiddenTextPrelude returns the page-side definitions of the hidden-text
// filter (hiddenRoots and visibleText, see hidden.go) that js/read_text.js
// expects, for another backend to put before it. Run them where the page
// cannot reach (an isolated world, a sandbox).
func HiddenTextPrelude() string { return hiddenJS }
