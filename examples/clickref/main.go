// Command clickref opens a page, clicks a button by the ref a snapshot
// gave it, and prints the changes: the smallest program on cdpkit's Go API.
//
//	go run ./clickref            # serves its own page on loopback
//	go run ./clickref -url URL   # clicks the first button of URL
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"time"

	"github.com/cdpkit/cdpkit"
)

func main() {
	url := flag.String("url", "", "page to open; empty serves a demo page on loopback")
	flag.Parse()
	if err := run(*url); err != nil {
		fmt.Fprintln(os.Stderr, "clickref:", err)
		os.Exit(1)
	}
}

func run(url string) error {
	if url == "" {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fmt.Fprint(w, `<!doctype html><title>clickref</title>
<button onclick="this.textContent = 'Clicked'; document.body.append(Object.assign(document.createElement('a'), {href: '#next', textContent: 'Next'}))">Click me</button>`)
		}))
		defer srv.Close()
		url = srv.URL
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	b, err := cdpkit.Launch(ctx, nil)
	if err != nil {
		return err
	}
	defer b.Close()
	tab, err := b.NewTab(ctx, url)
	if err != nil {
		return err
	}
	snap, err := tab.Snapshot(ctx, &cdpkit.SnapshotOptions{Interactive: true})
	if err != nil {
		return err
	}
	ref := snap.RefOf("button")
	if ref == "" {
		return fmt.Errorf("no button on %s:\n%s", url, snap.Text)
	}
	changes, err := tab.Click(ctx, cdpkit.Ref(ref))
	if err != nil {
		return err
	}
	fmt.Printf("clicked %s; changes:\n%s\n", ref, changes)
	return nil
}
