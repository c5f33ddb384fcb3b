package input

import "github.com/chromedp/chromedp/kb"

// KeyNames returns the combo as DOM key values, for a backend that takes
// keys by name (WebDriver BiDi): the modifiers in the order they go down,
// such as "Control", then the key, such as "Enter" or "a".
func (c Combo) KeyNames() (mods []string, key string) {
	name := func(r rune) string {
		if k, ok := kb.Keys[r]; ok && k.Key != "" {
			return k.Key
		}
		return string(r)
	}
	for _, m := range c.mods {
		mods = append(mods, name(m))
	}
	if c.key == '\r' {
		return mods, "Enter"
	}
	return mods, name(c.key)
}
