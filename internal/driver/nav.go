package driver

import (
	"errors"
	"fmt"
	"strings"
)

// NavResult is the outcome of a navigation.
type NavResult struct {
	URL    string `json:"url"` // after redirects
	Title  string `json:"title"`
	Status int    `json:"status,omitempty"` // the main document's HTTP status; 0 when none (about:, same-document, back/forward cache)
	// Download says the URL answered with a file, which the browser
	// downloaded (see DownloadLog): the tab stayed on the page URL and
	// Title name.
	Download bool `json:"download,omitempty"`
}

// WaitUntil names the point in a page's loading at which a navigation is
// done.
type WaitUntil string

const (
	// WaitLoad waits for the load event: the page and its subresources
	// (images, scripts, styles, iframes) have loaded. It is the default.
	WaitLoad WaitUntil = "load"
	// WaitDOMContentLoaded waits for DOMContentLoaded: the HTML is parsed
	// and deferred scripts have run; images may still be loading.
	WaitDOMContentLoaded WaitUntil = "domcontentloaded"
	// WaitNetworkIdle waits for the load event and then for Chromium's
	// networkIdle: no network request for 500 ms.
	WaitNetworkIdle WaitUntil = "networkidle"
)

// ParseWaitUntil checks a WaitUntil name; "" means [WaitLoad]. An unknown
// name is an error wrapping [ErrInvalidArgument].
func ParseWaitUntil(s string) (WaitUntil, error) {
	w := WaitUntil(strings.ToLower(s))
	if w == "" {
		return WaitLoad, nil
	}
	if _, err := w.Lifecycle(); err != nil {
		return "", err
	}
	return w, nil
}

// Lifecycle returns the Page.lifecycleEvent names that must all fire.
func (w WaitUntil) Lifecycle() ([]string, error) {
	switch w {
	case "", WaitLoad:
		return []string{"load"}, nil
	case WaitDOMContentLoaded:
		return []string{"DOMContentLoaded"}, nil
	case WaitNetworkIdle:
		return []string{"load", "networkIdle"}, nil
	}
	return nil, fmt.Errorf("%w: waitUntil %q: use load, domcontentloaded or networkidle", ErrInvalidArgument, string(w))
}

// NavOptions tune a navigation. Nil means defaults.
type NavOptions struct {
	WaitUntil WaitUntil // "" means WaitLoad
}

func (o *NavOptions) Lifecycle() ([]string, error) {
	if o == nil {
		return WaitLoad.Lifecycle()
	}
	return o.WaitUntil.Lifecycle()
}

// ErrNoHistoryEntry means a tab has no history entry in the direction of a
// back or forward navigation.
var ErrNoHistoryEntry = errors.New("browser: no history entry")

// HistoryEndError says which end of its history a tab is at.
type HistoryEndError struct {
	Forward bool // the navigation asked for was forward
}

func (e *HistoryEndError) Error() string {
	if e.Forward {
		return "browser: going forward: the tab is at the end of its history"
	}
	return "browser: going back: the tab is at the start of its history"
}

func (e *HistoryEndError) Unwrap() error { return ErrNoHistoryEntry }
