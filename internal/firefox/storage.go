package firefox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Storage state, as on Chromium (driver.StorageState): the cookies of the
// tab's user context and the localStorage of the origins its scope's tabs
// show, read and written by script in those tabs.

const (
	readStorageJS  = `() => { const s = window.localStorage, out = []; for (let i = 0; i < s.length; i++) { const k = s.key(i); out.push({name: k, value: s.getItem(k)}); } return out; }`
	writeStorageJS = `(items) => { for (const {name, value} of items) localStorage.setItem(name, value); return true; }`
)

// siblings returns the tabs of t's scope in t's user context, t first.
func (t *Tab) siblings() []*Tab {
	b := t.b
	b.mu.Lock()
	owner, uc := b.owner[t.id], b.userContextOfLocked(t.id)
	b.mu.Unlock()
	out := []*Tab{t}
	for _, o := range b.visible(owner) {
		b.mu.Lock()
		same := o != t && b.userContextOfLocked(o.id) == uc
		b.mu.Unlock()
		if same {
			out = append(out, o)
		}
	}
	return out
}

// originOf returns a URL's origin, "" for one that is not http(s).
func originOf(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// SaveStorageState implements driver.TabDriver.
func (t *Tab) SaveStorageState(ctx context.Context) (*driver.StorageState, error) {
	cookies, err := t.Cookies(ctx, nil)
	if err != nil {
		return nil, err
	}
	st := driver.NewStorageState(cookies)
	seen := map[string]bool{}
	for _, o := range t.siblings() {
		origin := originOf(o.url())
		if origin == "" || seen[origin] {
			continue
		}
		seen[origin] = true
		items := []driver.StateItem{}
		if err := o.callJSON(ctx, readStorageJS, nil, &items); err != nil {
			t.b.o.logger().Debug("firefox: storage state: reading localStorage", "origin", origin, "err", err)
			continue
		}
		st.Origins = append(st.Origins, driver.StateOrigin{Origin: origin, LocalStorage: items})
	}
	return st, nil
}

// LoadStorageState implements driver.TabDriver: the state's cookies into
// the tab's user context, and its localStorage into a tab of the scope
// showing each origin, or else into the tab's next documents of that
// origin (script.addPreloadScript), keeping what the page has set by then.
func (t *Tab) LoadStorageState(ctx context.Context, st *driver.StorageState) error {
	for _, c := range st.Cookies {
		spec := driver.CookieSpec{Cookie: driver.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: c.SameSite}}
		if c.Expires > 0 {
			spec.Expires = c.Expires
		}
		if err := driver.CheckCookie(&spec); err != nil {
			return fmt.Errorf("cookie %s: %w", c.Name, err)
		}
		if err := t.setCookie(ctx, spec); err != nil {
			return fmt.Errorf("firefox: setting the state's cookies: %w", err)
		}
	}
	tabs := t.siblings()
	for _, o := range st.Origins {
		origin := strings.TrimSuffix(o.Origin, "/")
		done := false
		for _, s := range tabs {
			if originOf(s.url()) != origin {
				continue
			}
			if err := s.callJSON(ctx, writeStorageJS, nil, nil, o.LocalStorage); err != nil {
				return fmt.Errorf("firefox: setting localStorage of %s: %w", origin, s.wrap(err))
			}
			done = true
			break
		}
		if !done {
			if err := t.seedOnLoad(ctx, origin, o.LocalStorage); err != nil {
				return err
			}
		}
	}
	return nil
}

// seedOnLoad makes the tab fill origin's localStorage with items (the
// keys it lacks) in every document of that origin it loads from now on.
func (t *Tab) seedOnLoad(ctx context.Context, origin string, items []driver.StateItem) error {
	data, err := json.Marshal(items)
	if err != nil {
		return err
	}
	o, _ := json.Marshal(origin)
	fn := fmt.Sprintf(`() => { if (location.origin !== %s) return; try { for (const {name, value} of %s) if (localStorage.getItem(name) === null) localStorage.setItem(name, value); } catch (e) {} }`, o, data)
	if err := t.b.conn.Call(ctx, "script.addPreloadScript", map[string]any{"functionDeclaration": fn, "contexts": []string{t.id}}, nil); err != nil {
		return fmt.Errorf("firefox: setting localStorage of %s: %w", origin, t.wrap(err))
	}
	return nil
}
