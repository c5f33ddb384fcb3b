package policy

import (
	"maps"
	"testing"
)

func TestRedactHeaders(t *testing.T) {
	in := map[string]string{
		"Authorization": "Bearer s3cret", "cookie": "sid=s3cret", "Set-Cookie": "sid=s3cret; HttpOnly",
		"PROXY-AUTHORIZATION": "Basic s3cret", "Content-Type": "text/html", "X-Cookie-Hint": "visible", "X-Api-Key": "k",
	}
	orig := maps.Clone(in)
	got := RedactHeaders(in)
	want := map[string]string{
		"Authorization": Redacted, "cookie": Redacted, "Set-Cookie": Redacted,
		"PROXY-AUTHORIZATION": Redacted, "Content-Type": "text/html", "X-Cookie-Hint": Redacted, "X-Api-Key": Redacted,
	}
	if !maps.Equal(got, want) {
		t.Errorf("RedactHeaders = %v, want %v", got, want)
	}
	if !maps.Equal(in, orig) {
		t.Errorf("RedactHeaders changed its input: %v", in)
	}
	for _, name := range []string{"X-API_KEY", "X-Access-Key", "X-Private-Key", "X-Auth", "Authentication", "X-Credential",
		"Cookie2", "x-csrf-token", "X-Amz-Security-Token", "X-Goog-Api-Key", "Private-Token", "X-Passwd", "X-Signature", "X-Auth_Token"} {
		if !SecretHeader(name) {
			t.Errorf("SecretHeader(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"Content-Type", "Accept-Language", "User-Agent", "X-Requested-With", "Cache-Control", "Referer", "X-Keyboard-Layout"} {
		if SecretHeader(name) {
			t.Errorf("SecretHeader(%q) = true, want false", name)
		}
	}
	if RedactHeaders(nil) != nil {
		t.Error("RedactHeaders(nil) != nil")
	}
}
