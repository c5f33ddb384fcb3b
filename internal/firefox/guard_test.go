package firefox

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// blockedTarget is a private address, which the default URL policy
// refuses; nothing needs to listen there.
const blockedTarget = "http://10.255.255.1/secret"

func attackServer(t *testing.T) string {
	mux := http.NewServeMux()
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, blockedTarget, http.StatusFound)
	})
	page := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "<!doctype html><title>attack</title><body>%s</body>", body)
		}
	}
	mux.HandleFunc("/link", page(`<a href="`+blockedTarget+`">metadata</a>`))
	mux.HandleFunc("/iframe", page(`<iframe src="`+blockedTarget+`"></iframe>`))
	mux.HandleFunc("/popup", page(`<button onclick="window.open('`+blockedTarget+`')">open</button>`))
	return browsertest.ServerHandler(t, mux).URL
}

// TestGuardRefusesPageNavigations: a redirect, a link, an iframe and a
// popup to a private address never load; the refusal is reported.
func TestGuardRefusesPageNavigations(t *testing.T) {
	t.Parallel()
	base := attackServer(t)

	t.Run("redirect", func(t *testing.T) {
		t.Parallel()
		tab := newTab(t)
		_, err := tab.Navigate(t.Context(), base+"/redirect")
		var be *driver.BlockedError
		if !errors.As(err, &be) || be.URL != blockedTarget || !errors.Is(err, policy.ErrURLBlocked) {
			t.Fatalf("Navigate to a redirect to a private address: got %v, want a BlockedError for %s", err, blockedTarget)
		}
	})
	t.Run("link", func(t *testing.T) {
		t.Parallel()
		tab := newTab(t)
		if _, err := tab.Navigate(t.Context(), base+"/link"); err != nil {
			t.Fatal(err)
		}
		snap, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tab.Click(t.Context(), driver.ClickOptions{Ref: refOf(t, snap.Text, `link "metadata"`)}); err != nil {
			t.Fatal(err)
		}
		waitBlocked(t, tab)
		if loc, _ := tab.Location(t.Context()); strings.HasPrefix(loc.URL, blockedTarget) {
			t.Errorf("the tab reached %s", loc.URL)
		}
	})
	t.Run("iframe", func(t *testing.T) {
		t.Parallel()
		tab := newTab(t)
		if _, err := tab.Navigate(t.Context(), base+"/iframe"); err != nil {
			t.Fatal(err)
		}
		waitBlocked(t, tab)
	})
	t.Run("popup", func(t *testing.T) {
		t.Parallel()
		tab := newTab(t)
		if _, err := tab.Navigate(t.Context(), base+"/popup"); err != nil {
			t.Fatal(err)
		}
		before, _ := tab.b.PagesNow(nil)
		snap, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tab.Click(t.Context(), driver.ClickOptions{Ref: refOf(t, snap.Text, `button "open"`)}); err != nil {
			t.Fatal(err)
		}
		// The popup is a tab of its own; its navigation is the one refused.
		browsertest.Eventually(t, 20*time.Second, func() error {
			pages, _ := tab.b.PagesNow(nil)
			for _, p := range pages {
				if containsPage(before, p.ID) {
					continue
				}
				td, err := tab.b.TabIn(t.Context(), nil, p.ID)
				if err != nil {
					continue
				}
				if b := td.BlockNote(); b != nil && b.URL == blockedTarget {
					td.Close(t.Context())
					return nil
				}
			}
			return errors.New("no popup with a refused navigation yet")
		})
	})
}

func containsPage(pages []driver.Page, id string) bool {
	for _, p := range pages {
		if p.ID == id {
			return true
		}
	}
	return false
}

func waitBlocked(t *testing.T, tab *Tab) {
	t.Helper()
	browsertest.Eventually(t, 20*time.Second, func() error {
		if b := tab.BlockNote(); b != nil {
			if b.URL != blockedTarget {
				return fmt.Errorf("blocked %s, want %s", b.URL, blockedTarget)
			}
			return nil
		}
		return errors.New("no refusal noted yet")
	})
}
