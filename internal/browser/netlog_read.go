package browser

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/network"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Reading the request log (netlog.go records it).

// NetworkRequests returns the tab's requests that match q, oldest first,
// and how many match in all. The log starts when cdpkit first attaches to
// the tab and keeps the requests of its last driver.NetworkNavigations
// navigations, at most CDPKIT_NETWORK_BUFFER (1000) of them. The context
// bounds attaching.
func (t *Tab) NetworkRequests(ctx context.Context, q driver.RequestQuery) ([]driver.Request, int, error) {
	if _, err := t.session(ctx); err != nil {
		return nil, 0, err
	}
	t.net.mu.Lock()
	defer t.net.mu.Unlock()
	out, total := driver.SelectRequests(&q, t.net.nav, t.net.list, func(e *netEntry) *driver.Request { return &e.Request })
	return out, total, nil
}

// NetworkRequest returns one kept request with its headers (unredacted:
// redacting is the caller's), timing and initiator. An id that matches
// nothing kept is a [*RequestError].
func (t *Tab) NetworkRequest(ctx context.Context, id int) (driver.RequestDetail, error) {
	e, err := t.netEntry(ctx, id)
	if err != nil {
		return driver.RequestDetail{}, err
	}
	t.net.mu.Lock()
	defer t.net.mu.Unlock()
	d := e.RequestDetail
	d.RequestHeaders = copyMap(e.RequestHeaders)
	d.ResponseHeaders = copyMap(e.ResponseHeaders)
	d.Timing = e.phases()
	return d, nil
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (t *Tab) netEntry(ctx context.Context, id int) (*netEntry, error) {
	if _, err := t.session(ctx); err != nil {
		return nil, err
	}
	t.net.mu.Lock()
	defer t.net.mu.Unlock()
	for _, e := range t.net.list {
		if e.ID == id {
			return e, nil
		}
	}
	return nil, &driver.RequestError{ID: id, Gone: id > 0 && id <= t.net.lastID}
}

// ResponseBody returns a request's response body, decoded from base64
// when the browser sent it so, and whether it was binary. A body the
// browser no longer has (or never had) is [ErrBodyGone]. The context
// bounds the call.
func (t *Tab) ResponseBody(ctx context.Context, id int) (body []byte, binary bool, err error) {
	e, err := t.netEntry(ctx, id)
	if err != nil {
		return nil, false, err
	}
	t.net.mu.Lock()
	done, failed := e.Done, e.Failure != "" || e.redirect
	t.net.mu.Unlock()
	if !done || failed {
		return nil, false, fmt.Errorf("browser: request %d has no complete body: %w", id, driver.ErrBodyGone)
	}
	var res struct {
		Body          string `json:"body"`
		Base64Encoded bool   `json:"base64Encoded"`
	}
	if err := e.sess.Call(ctx, "Network.getResponseBody", network.GetResponseBodyParams{RequestID: e.reqID}, &res); err != nil {
		if isGoneError(err) {
			return nil, false, fmt.Errorf("browser: request %d: %w", id, driver.ErrBodyGone)
		}
		return nil, false, fmt.Errorf("browser: reading the body of request %d: %w", id, err)
	}
	if res.Base64Encoded {
		b, err := decodeBase64(res.Body)
		return b, true, err
	}
	return []byte(res.Body), false, nil
}

// RequestPostData returns the body a request sent, asking the browser
// when the event did not carry it whole. A request without a body is
// [ErrBodyGone].
func (t *Tab) RequestPostData(ctx context.Context, id int) ([]byte, error) {
	e, err := t.netEntry(ctx, id)
	if err != nil {
		return nil, err
	}
	t.net.mu.Lock()
	has, post, short := e.HasBody, e.post, e.postCut
	t.net.mu.Unlock()
	if !has {
		return nil, fmt.Errorf("browser: request %d sent no body: %w", id, driver.ErrBodyGone)
	}
	if !short {
		return []byte(post), nil
	}
	var res struct {
		PostData      string `json:"postData"`
		Base64Encoded bool   `json:"base64Encoded"`
	}
	if err := e.sess.Call(ctx, "Network.getRequestPostData", network.GetRequestPostDataParams{RequestID: e.reqID}, &res); err != nil {
		if isGoneError(err) {
			return nil, fmt.Errorf("browser: request %d: %w", id, driver.ErrBodyGone)
		}
		return nil, fmt.Errorf("browser: reading the body request %d sent: %w", id, err)
	}
	if res.Base64Encoded {
		return decodeBase64(res.PostData)
	}
	return []byte(res.PostData), nil
}

// isGoneError reports the browser's answer for a request or body it no
// longer keeps (or a session that closed with its target).
func isGoneError(err error) bool {
	s := err.Error()
	return errors.Is(err, cdp.ErrSessionClosed) || strings.Contains(s, "No resource with given") ||
		strings.Contains(s, "No data found") || strings.Contains(s, "No post data")
}

func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("browser: decoding a body: %w", err)
	}
	return b, nil
}
