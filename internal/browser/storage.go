package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"

	"github.com/cdpkit/cdpkit/internal/cdp"
)

// StorageState is a browser context's cookies and the localStorage of
// origins, in the shape Playwright's storageState uses, so files move
// between tools. Cookie expires is seconds since the epoch, -1 for a
// session cookie.
type StorageState struct {
	Cookies []StateCookie `json:"cookies"`
	Origins []StateOrigin `json:"origins"`
}

// StateCookie is a cookie of a [StorageState].
type StateCookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"` // Strict, Lax or None
}

// StateOrigin is an origin's localStorage.
type StateOrigin struct {
	Origin       string      `json:"origin"`
	LocalStorage []StateItem `json:"localStorage"`
}

// StateItem is one localStorage entry.
type StateItem struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ParseStorageState decodes and validates a storage state file. A
// malformed one wraps ErrInvalidArgument, naming what is wrong.
func ParseStorageState(data []byte) (*StorageState, error) {
	var st StorageState
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%w: not a storage state (cookies and origins): %v", ErrInvalidArgument, err)
	}
	for i, c := range st.Cookies {
		spec := CookieSpec{Cookie: Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly,
			Secure: c.Secure, SameSite: c.SameSite}}
		if c.Expires > 0 {
			spec.Expires = c.Expires
		}
		if err := checkCookie(&spec); err != nil {
			return nil, fmt.Errorf("cookie %d (%s): %w", i, c.Name, err)
		}
	}
	for i, o := range st.Origins {
		u, err := url.Parse(o.Origin)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("%w: origin %d %q is not an http(s) origin", ErrInvalidArgument, i, o.Origin)
		}
	}
	return &st, nil
}

// SaveStorageState returns the cookies of t's browser context and the
// localStorage of the origins its open tabs show. The context bounds the
// call.
func (t *Tab) SaveStorageState(ctx context.Context) (*StorageState, error) {
	cookies, err := t.Cookies(ctx, nil)
	if err != nil {
		return nil, err
	}
	st := &StorageState{Cookies: []StateCookie{}, Origins: []StateOrigin{}}
	for _, c := range cookies {
		exp := c.Expires
		if exp == 0 {
			exp = -1
		}
		ss := c.SameSite
		if ss == "" {
			ss = "Lax"
		}
		st.Cookies = append(st.Cookies, StateCookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: exp,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: ss})
	}
	bctx, err := t.b.contextOf(ctx, t.id)
	if err != nil {
		return nil, err
	}
	// The live target table knows the tabs and their URLs: no round trip.
	pages, _ := t.b.targets.pages()
	slices.SortFunc(pages, func(a, b tabTarget) int { return a.order - b.order })
	seen := map[string]bool{}
	for _, p := range pages {
		ti := p.info
		if ti.BrowserContextID != bctx {
			continue
		}
		u, err := url.Parse(ti.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			continue
		}
		origin := u.Scheme + "://" + u.Host
		if seen[origin] {
			continue
		}
		seen[origin] = true
		items, err := t.b.tab(ti.TargetID).localStorage(ctx)
		if err != nil {
			t.b.log.Debug("storage state: reading localStorage", "origin", origin, "err", err)
			continue
		}
		st.Origins = append(st.Origins, StateOrigin{Origin: origin, LocalStorage: items})
	}
	return st, nil
}

// localStorage reads the tab's main frame's localStorage.
func (t *Tab) localStorage(ctx context.Context) ([]StateItem, error) {
	s, err := t.session(ctx)
	if err != nil {
		return nil, err
	}
	yes := true
	res, err := cdpapi.Call(ctx, s, runtime.Evaluate, runtime.EvaluateParams{
		Expression:    `(() => { const s = window.localStorage, out = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push({name: k, value: s.getItem(k)}); } return JSON.stringify(out); })()`,
		ReturnByValue: &yes,
	})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil || res.Result == nil {
		return nil, fmt.Errorf("browser: localStorage is not readable here")
	}
	var raw string
	if err := json.Unmarshal(res.Result.Value, &raw); err != nil {
		return nil, err
	}
	items := []StateItem{}
	return items, json.Unmarshal([]byte(raw), &items)
}

// LoadStorageState adds st's cookies to t's browser context and its
// localStorage entries to their origins. The context bounds the call.
func (t *Tab) LoadStorageState(ctx context.Context, st *StorageState) error {
	bctx, err := t.b.contextOf(ctx, t.id)
	if err != nil {
		return err
	}
	s, err := t.session(ctx)
	if err != nil {
		return err
	}
	return t.b.applyStorageState(ctx, bctx, s, st)
}

// applyStorageState sets st's cookies in bctx and, through s (a tab
// session of bctx), its localStorage. With s nil only the cookies are set.
func (b *Browser) applyStorageState(ctx context.Context, bctx cdpapi.BrowserContextID, s cdpapi.Session, st *StorageState) error {
	var params []*network.CookieParam
	for _, c := range st.Cookies {
		spec := CookieSpec{Cookie: Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly,
			Secure: c.Secure, SameSite: c.SameSite}}
		if c.Expires > 0 {
			spec.Expires = c.Expires
		}
		params = append(params, cookieParam(&spec))
	}
	if len(params) > 0 {
		if _, err := cdpapi.Call(ctx, b.conn.Browser(), storage.SetCookies, storage.SetCookiesParams{Cookies: params, BrowserContextID: bctx}); err != nil {
			return fmt.Errorf("browser: setting the state's cookies: %w", err)
		}
	}
	if s == nil || len(st.Origins) == 0 {
		return nil
	}
	if _, err := cdpapi.Call(ctx, s, domstorage.Enable, cdpapi.Empty{}); err != nil {
		return fmt.Errorf("browser: setting localStorage: %w", err)
	}
	for _, o := range st.Origins {
		origin := strings.TrimSuffix(o.Origin, "/")
		id := &domstorage.StorageID{SecurityOrigin: origin, IsLocalStorage: true}
		for i, it := range o.LocalStorage {
			_, err := cdpapi.Call(ctx, s, domstorage.SetDOMStorageItem, domstorage.SetDOMStorageItemParams{StorageID: id, Key: it.Name, Value: it.Value})
			if err != nil && i == 0 && strings.Contains(err.Error(), "Frame not found") {
				// No frame of the tab shows the origin: fill it when one
				// loads, keeping what the page has set by then.
				if err := seedOnLoad(ctx, s, origin, o.LocalStorage); err != nil {
					return err
				}
				break
			}
			if err != nil {
				return fmt.Errorf("browser: setting localStorage of %s: %w", o.Origin, err)
			}
		}
	}
	return nil
}

// seedOnLoad makes the tab fill origin's localStorage with items (the
// keys it lacks) in every document of that origin it loads from now on.
func seedOnLoad(ctx context.Context, s cdpapi.Session, origin string, items []StateItem) error {
	data, err := json.Marshal(items)
	if err != nil {
		return err
	}
	o, _ := json.Marshal(origin)
	script := fmt.Sprintf(`(() => { if (location.origin !== %s) return; try { for (const {name, value} of %s) if (localStorage.getItem(name) === null) localStorage.setItem(name, value); } catch (e) {} })()`, o, data)
	if _, err := cdpapi.Call(ctx, s, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script}); err != nil {
		return fmt.Errorf("browser: setting localStorage of %s: %w", origin, err)
	}
	return nil
}

// seedStorage fills the localStorage of Options.StorageState into the
// browser context of t, through s, the first time cdpkit attaches to a
// tab of that context.
func (b *Browser) seedStorage(ctx context.Context, t *Tab, s *cdp.Session) error {
	if b.initState == nil || len(b.initState.Origins) == 0 {
		return nil
	}
	bctx, err := b.contextOf(ctx, t.id)
	if err != nil {
		return err
	}
	b.mu.Lock()
	done := b.seeded[bctx]
	if b.seeded == nil {
		b.seeded = make(map[cdpapi.BrowserContextID]bool)
	}
	b.seeded[bctx] = true
	b.mu.Unlock()
	if done {
		return nil
	}
	only := &StorageState{Origins: b.initState.Origins}
	if err := b.applyStorageState(ctx, bctx, s, only); err != nil {
		// A tab that cannot take the state is still usable.
		b.log.Warn("loading the storage state's localStorage", "err", err)
	}
	return nil
}
