package tools

import (
	"mime"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Fulfilling a request with the agent's own bytes is evaluation when the
// browser may run them: a document (HTML, XHTML, XML, SVG) runs its
// scripts on the real site's origin, with its cookies, and a script runs
// in the page that loaded it. So without --allow-eval a fulfilled body must
// be data of a type no browser runs, and it is sent with nosniff, so that
// no browser guesses another type from its bytes (Chromium runs a
// text/plain answer to a <script src> otherwise).

// dataTypes are the media types a mock may fulfill with when evaluation
// is off; image/, audio/, video/ and font/ types and +json suffixes are
// data too, except image/svg+xml.
var dataTypes = []string{"application/json", "text/plain", "text/csv", "text/css", "application/octet-stream",
	"application/x-www-form-urlencoded", "text/event-stream"}

// runnableBody reports why a fulfilled body with these headers may be run
// by the browser ("" when it is data only).
func runnableBody(headers map[string]string, body []byte) string {
	if len(body) == 0 {
		return ""
	}
	var types []string
	for k, v := range headers {
		if strings.EqualFold(k, "content-type") {
			types = append(types, v)
		}
	}
	if len(types) == 0 {
		return "a body without a Content-Type, which the browser would sniff (it may be run as HTML)"
	}
	for _, v := range types {
		t, _, err := mime.ParseMediaType(v)
		if err != nil {
			return "a body whose Content-Type " + v + " does not parse"
		}
		if !isDataType(t) {
			return "a " + t + " body, which the browser runs"
		}
	}
	return ""
}

func isDataType(t string) bool {
	major, _, _ := strings.Cut(t, "/")
	switch {
	case t == "image/svg+xml":
		return false
	case major == "image", major == "audio", major == "video", major == "font", strings.HasSuffix(t, "+json"):
		return true
	}
	return contains(dataTypes, t)
}

// refuseRunnable refuses a fulfill rule whose body the browser may run,
// unless evaluation is allowed; a data body gets nosniff.
func refuseRunnable(env *Env, r *driver.MockRule) error {
	if env.AllowEval || r.Action != driver.MockFulfill {
		return nil
	}
	if why := runnableBody(r.Headers, r.Body); why != "" {
		return errorf(EvalDisabled, false,
			"fulfill with data (json, text/plain, an image…), or restart cdpkit with --allow-eval (or CDPKIT_ALLOW_EVAL=1) to answer with documents and scripts",
			"mock_request would fulfill with %s: that runs the agent's code in the page, which is off unless cdpkit is started with --allow-eval", why)
	}
	h := map[string]string{"X-Content-Type-Options": "nosniff"}
	for k, v := range r.Headers {
		if !strings.EqualFold(k, "x-content-type-options") {
			h[k] = v
		}
	}
	r.Headers = h
	return nil
}
