package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"

	"github.com/cdpkit/cdpkit/internal/cdp"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// CheckCrashed returns an error matching [ErrTargetCrashed] if the tab's
// renderer crashed since its last successful navigation.
func (t *Tab) CheckCrashed() error {
	if t.crashed.Load() {
		return fmt.Errorf("browser: tab %s: %w", t.id, driver.ErrTargetCrashed)
	}
	return nil
}

// reloadCrashed reloads a crashed tab by loading its URL again: its
// renderer is gone, so it cannot say what its main frame is.
func (t *Tab) reloadCrashed(ctx context.Context, o *driver.NavOptions) (*driver.NavResult, error) {
	return t.runNavigation(ctx, o, func(ctx context.Context, s *cdp.Session, want []string) (*driver.NavResult, error) {
		loc, err := location(ctx, s)
		if err != nil {
			return nil, err
		}
		return navigateTo(ctx, s, loc.URL, want, false)
	})
}

// watchCrash marks the tab crashed when s reports that its renderer
// crashed. It ends with the session.
func (t *Tab) watchCrash(s *cdp.Session) {
	events, stop := s.SubscribeEvents("Inspector.targetCrashed")
	go func() {
		defer stop()
		for range events {
			t.crashed.Store(true)
			t.dialogs.forgetOpen() // it died with the renderer
			// The dead renderer never answers what was asked of it.
			if t.loopStopped.Swap(false) {
				s.FailPending(errLoopStopped) // cdpkit stopped it (dialog.go)
				continue
			}
			s.FailPending(driver.ErrTargetCrashed)
			t.b.log.Warn("a tab's renderer crashed", "tab", string(t.id))
		}
	}()
}

// processTransport is the pipe to a launched browser. It turns the pipe
// breaking while the process was not being closed into a [*CrashedError],
// so that pending and later calls say the browser crashed.
type processTransport struct {
	cdp.Transport
	p *process
}

func (t *processTransport) ReadMessage() ([]byte, error) {
	msg, err := t.Transport.ReadMessage()
	if err != nil {
		return nil, t.p.crashed(err)
	}
	return msg, nil
}

func (t *processTransport) WriteMessage(ctx context.Context, msg []byte) error {
	if err := t.Transport.WriteMessage(ctx, msg); err != nil {
		return t.p.crashed(err)
	}
	return nil
}

// crashedWait bounds how long a broken pipe waits for the process's exit
// status, which makes the error say why it died.
const crashedWait = 50 * time.Millisecond

// crashed explains err, the pipe breaking: a *CrashedError unless cdpkit
// is closing the browser.
func (p *process) crashed(err error) error {
	if p.closing.Load() {
		return err
	}
	reason := "its DevTools pipe closed"
	select {
	case <-p.exited:
		reason = "the process exited (" + p.cmd.ProcessState.String() + ")"
	case <-time.After(crashedWait):
	}
	return &driver.CrashedError{Reason: reason}
}

// clearSingleton removes the lock files Chromium leaves in a profile when
// it is killed, so that a new browser can start on the same profile.
func clearSingleton(profile string) {
	for _, name := range []string{"SingletonLock", "SingletonSocket", "SingletonCookie"} {
		os.Remove(filepath.Join(profile, name))
	}
}

// lastEmulation returns what the browser's tabs emulate: the active tab's
// emulation if it has one, else any tab's.
func (b *Browser) lastEmulation() driver.Emulation {
	b.mu.Lock()
	defer b.mu.Unlock()
	var found driver.Emulation
	for id, t := range b.tabs {
		e := t.Emulation()
		if reflect.DeepEqual(e, driver.Emulation{}) {
			continue
		}
		if id == b.active {
			return e
		}
		found = e
	}
	return found
}

// applyEmulation makes every open tab emulate e.
func (b *Browser) applyEmulation(ctx context.Context, e driver.Emulation) error {
	if reflect.DeepEqual(e, driver.Emulation{}) {
		return nil
	}
	pages, err := b.PagesNow(nil)
	if err != nil {
		return err
	}
	for _, p := range pages {
		t := b.tab(tabID(p.ID))
		t.emu.mu.Lock()
		t.emu.state = e.Clone()
		t.emu.mu.Unlock()
		s, err := t.session(ctx)
		if err != nil {
			return err
		}
		if err := t.restoreEmulation(ctx, s); err != nil {
			return fmt.Errorf("browser: restoring emulation: %w", err)
		}
	}
	return nil
}

// cookies returns every cookie of the browser, session cookies included,
// in the form that [Browser.setCookies] takes.
//
// Chromium writes cookies to the profile only every 30 seconds or so, so a
// browser that is killed loses the newest ones; the Manager keeps a copy
// taken after each call and sets it again on the browser that replaces it.
func (b *Browser) cookies(ctx context.Context) ([]*network.CookieParam, error) {
	res, err := cdpapi.Call(ctx, b.conn.Browser(), storage.GetCookies, storage.GetCookiesParams{})
	if err != nil {
		return nil, fmt.Errorf("browser: reading cookies: %w", err)
	}
	out := make([]*network.CookieParam, 0, len(res.Cookies))
	for _, c := range res.Cookies {
		p := &network.CookieParam{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly,
			SameSite: c.SameSite, Priority: c.Priority, SourceScheme: c.SourceScheme, SourcePort: c.SourcePort, PartitionKey: c.PartitionKey}
		if !c.Session {
			p.Expires = cdpapi.TimeSinceEpoch(c.Expires)
		}
		out = append(out, p)
	}
	return out, nil
}

// setCookies sets cookies in the browser.
func (b *Browser) setCookies(ctx context.Context, cookies []*network.CookieParam) error {
	if len(cookies) == 0 {
		return nil
	}
	if _, err := cdpapi.Call(ctx, b.conn.Browser(), storage.SetCookies, storage.SetCookiesParams{Cookies: cookies}); err != nil {
		return fmt.Errorf("browser: setting cookies: %w", err)
	}
	return nil
}
