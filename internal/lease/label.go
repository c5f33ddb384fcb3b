package lease

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxLabel bounds a lease label, in characters: other agents read it in
// every refusal and listing.
const MaxLabel = 128

// ErrBadLabel means a label is too long or holds characters other agents
// could be misled by (control, format or escape characters).
var ErrBadLabel = errors.New("lease: bad label")

// CheckLabel returns an error wrapping ErrBadLabel unless label is valid
// UTF-8 of at most MaxLabel characters, none of them a control character
// (newlines, escape codes) or an invisible format character (bidi
// overrides).
func CheckLabel(label string) error {
	if !utf8.ValidString(label) {
		return fmt.Errorf("%w: not valid UTF-8", ErrBadLabel)
	}
	if n := utf8.RuneCountInString(label); n > MaxLabel {
		return fmt.Errorf("%w: %d characters, at most %d", ErrBadLabel, n, MaxLabel)
	}
	for _, r := range label {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("%w: holds the control character %U", ErrBadLabel, r)
		}
	}
	return nil
}
