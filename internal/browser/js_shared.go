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
