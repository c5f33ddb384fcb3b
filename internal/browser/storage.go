package browser

import (
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
	"github.com/cdpkit/cdpkit/internal/driver"
)

// SaveStorageState returns the cookies of t's browser context and the
// localStorage of the origins its open tabs show. The context bounds the
// call.
func (t *Tab) SaveStorageState(ctx context.Context) (*driver.StorageState, error) {
	cookies, err := t.Cookies(ctx, nil)
	if err != nil {
		return nil, err
	}
	st := driver.NewStorageState(cookies)
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
		st.Origins = append(st.Origins, driver.StateOrigin{Origin: origin, LocalStorage: items})
	}
	return st, nil
}

// localStorage reads the tab's main frame's localStorage.
func (t *Tab) localStorage(ctx context.Context) ([]driver.StateItem, error) {
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
	items := []driver.StateItem{}
	return items, json.Unmarshal([]byte(raw), &items)
}

// LoadStorageState adds st's cookies to t's browser context and its
// localStorage entries to their origins. The context bounds the call.
func (t *Tab) LoadStorageState(ctx context.Context, st *driver.StorageState) error {
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
func (b *Browser) applyStorageState(ctx context.Context, bctx cdpapi.BrowserContextID, s cdpapi.Session, st *driver.StorageState) error {
	var params []*network.CookieParam
	for _, c := range st.Cookies {
		spec := driver.CookieSpec{Cookie: driver.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly,
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
func seedOnLoad(ctx context.Context, s cdpapi.Session, origin string, items []driver.StateItem) error {
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
	only := &driver.StorageState{Origins: b.initState.Origins}
	if err := b.applyStorageState(ctx, bctx, s, only); err != nil {
		// A tab that cannot take the state is still usable.
		b.log.Warn("loading the storage state's localStorage", "err", err)
	}
	return nil
}
