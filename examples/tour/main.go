// Command tour walks through cdpkit's Go API on a shop page it serves on
// loopback: launch, navigate, snapshot, click by text, answer a confirm,
// upload a file, read text, hover, scroll, cookies, mock a request and
// trace the page's load. Each step prints one line.
//
//	go run ./tour
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/cdpkit/cdpkit"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}

const shop = `<!doctype html><title>Shop</title>
<nav onmouseenter="document.getElementById('menu').hidden = false">Account
  <ul id=menu hidden><li><a href="#orders">Orders</a></ul></nav>
<h1>Cart</h1><p id=status>1 item</p>
<button onclick="if (confirm('Empty the cart?')) document.getElementById('status').textContent = 'Cart is empty'">Empty cart</button>
<label>Receipt <input type=file id=receipt onchange="document.getElementById('status').textContent = 'Uploaded ' + this.files[0].name"></label>
<button onclick="fetch('/api/price').then(r => r.json()).then(p => document.getElementById('status').textContent = 'Price: ' + p.price)">Check price</button>
<div style="height:2500px"></div><footer>Thanks for shopping</footer>`

// run serves the shop and tours it, writing a line per step to out.
func run(out io.Writer) error {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/price" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"price":"9.99 (live)"}`)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "cart", Value: "1"})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, shop)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Launch and navigate.
	b, err := cdpkit.Launch(ctx, nil)
	if err != nil {
		return err
	}
	defer b.Close()
	tab, err := b.NewTab(ctx, "")
	if err != nil {
		return err
	}
	page, err := tab.Navigate(ctx, srv.URL)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "navigate: %s (%d)\n", page.Title, page.Status)

	// Snapshot, then click a button found by its text: it asks to confirm.
	snap, err := tab.Snapshot(ctx, &cdpkit.SnapshotOptions{Interactive: true})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "snapshot: %d refs\n", snap.Refs)
	changes, err := tab.Click(ctx, cdpkit.Ref(snap.RefOf(`button "Empty cart"`)))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "click: a %s asks %q\n", changes.Dialog.Type, changes.Dialog.Message)
	if _, _, err := tab.AcceptDialog(ctx, ""); err != nil {
		return err
	}
	text, err := tab.Text(ctx, &cdpkit.TextOptions{Element: &cdpkit.Element{Selector: "#status"}})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "confirm accepted: %s\n", text.Text)

	// Upload a file from the artifact dir (an upload root by default).
	receipt := filepath.Join(b.ArtifactDir(), "receipt.pdf")
	if err := os.WriteFile(receipt, []byte("%PDF-1.4\n"), 0o600); err != nil {
		return err
	}
	if _, err := tab.Upload(ctx, cdpkit.CSS("#receipt"), receipt); err != nil {
		return err
	}
	if _, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{"Uploaded receipt.pdf"}}); err != nil {
		return err
	}
	fmt.Fprintln(out, "upload: the page got receipt.pdf")

	// Hover opens a menu; scroll to the footer.
	changes, err = tab.Hover(ctx, cdpkit.CSS("nav"))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "hover: %s", changes.Elements)
	pos, err := tab.Scroll(ctx, &cdpkit.ScrollOptions{Direction: "bottom"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "scroll: at the bottom: %v\n", pos.ScrollY+pos.ViewportHeight >= pos.PageHeight)

	// Cookies.
	cookies, err := tab.Cookies(ctx)
	if err != nil {
		return err
	}
	for _, c := range cookies {
		fmt.Fprintf(out, "cookie: %s=%s\n", c.Name, c.Value)
	}

	// Mock the price API, then check what the page shows.
	if _, err := tab.Mock(ctx, cdpkit.Mock{URL: "*/api/price", JSON: map[string]string{"price": "1.00 (mocked)"}}); err != nil {
		return err
	}
	snap, err = tab.Snapshot(ctx, &cdpkit.SnapshotOptions{Interactive: true})
	if err != nil {
		return err
	}
	if _, err := tab.Click(ctx, cdpkit.Ref(snap.RefOf(`button "Check price"`))); err != nil {
		return err
	}
	match, err := tab.WaitFor(ctx, cdpkit.WaitCondition{Text: []string{"Price: 1.00 (mocked)"}})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "mock: %s\n", match.Text)

	// Trace a reload of the page.
	if err := tab.StartTrace(ctx, &cdpkit.TraceOptions{Reload: true}); err != nil {
		return err
	}
	trace, err := tab.StopTrace(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "trace: saved %s, CLS %.2f\n", filepath.Base(filepath.Dir(trace.Path))+"/…", trace.CLS)
	return nil
}
