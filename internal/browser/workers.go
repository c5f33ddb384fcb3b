package browser

import (
	"context"
	"net/url"
	"slices"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// workerTypes are the target types Workers lists.
var workerTypes = []string{"worker", "shared_worker", "service_worker"}

// Workers lists the browser's workers. A scope sees those in the browser
// context of one of its tabs whose origin is one of its tabs' origins: a
// worker belongs to an origin, not to a tab, and the scope must not learn
// what other scopes' pages run.
func (b *Browser) Workers(ctx context.Context, s *driver.Scope) ([]driver.Worker, error) {
	if err := b.refreshTargets(ctx); err != nil {
		return nil, err
	}
	type seen struct {
		ctx    cdpapi.BrowserContextID
		origin string
	}
	var mine map[seen]bool
	if s != nil {
		pages, err := b.PagesNow(s)
		if err != nil {
			return nil, err
		}
		mine = map[seen]bool{}
		b.targets.mu.Lock()
		for _, p := range pages {
			if ti := b.targets.infos[target.ID(p.ID)]; ti != nil {
				mine[seen{ti.BrowserContextID, originOf(ti.URL)}] = true
			}
		}
		b.targets.mu.Unlock()
	}
	b.targets.mu.Lock()
	defer b.targets.mu.Unlock()
	type ordered struct {
		w     driver.Worker
		order int
	}
	var all []ordered
	for id, ti := range b.targets.infos {
		if !slices.Contains(workerTypes, ti.Type) {
			continue
		}
		if mine != nil && !mine[seen{ti.BrowserContextID, originOf(ti.URL)}] {
			continue
		}
		all = append(all, ordered{driver.Worker{ID: string(id), Type: ti.Type, URL: ti.URL}, b.targets.order[id]})
	}
	slices.SortFunc(all, func(x, y ordered) int { return x.order - y.order })
	out := make([]driver.Worker, len(all))
	for i, o := range all {
		out[i] = o.w
	}
	return out, nil
}

// originOf returns scheme://host[:port] of raw, "" if it has none.
func originOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func (c chromium) Workers(ctx context.Context, s *driver.Scope) ([]driver.Worker, error) {
	return c.b.Workers(ctx, s)
}
