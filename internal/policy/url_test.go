package policy

import (
	"errors"
	"testing"
)

func TestCheckURL(t *testing.T) {
	tests := []struct {
		url  string
		want error
	}{
		{"http://127.0.0.1:8080/", nil},
		{"https://example.com/a?b#c", nil},
		{"HTTP://EXAMPLE.COM", nil},
		{"about:blank", nil},
		{"example.com", ErrInvalidURL},
		{"", ErrInvalidURL},
		{"http://", ErrInvalidURL},
		{"file:///etc/passwd", ErrURLBlocked},
		{"javascript:alert(1)", ErrURLBlocked},
		{"data:text/html,hi", ErrURLBlocked},
		{"chrome://version", ErrURLBlocked},
		{"about:config", ErrURLBlocked},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			err := CheckURL(tt.url)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckURL(%q) = %v, want nil", tt.url, err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("CheckURL(%q) = %v, want %v", tt.url, err, tt.want)
			}
			var ue *URLError
			if !errors.As(err, &ue) || ue.Hint == "" {
				t.Errorf("CheckURL(%q) = %#v, want a *URLError with a hint", tt.url, err)
			}
		})
	}
}
