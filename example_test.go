package cdpkit_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/cdpkit/cdpkit"
)

// page serves a loopback page whose button reveals a message.
func page() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Demo</title>
<button onclick="document.getElementById('out').hidden = false; this.textContent = 'Done'">Greet</button>
<p id="out" hidden><a href="#hello">Hello!</a></p>`)
	}))
}

// Launch a browser, open a page, find a button's ref in a snapshot,
// click it and print what changed; then see what a failed call returns.
func ExampleLaunch() {
	srv := page()
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	b, err := cdpkit.Launch(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Close()
	tab, err := b.NewTab(ctx, srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	snap, err := tab.Snapshot(ctx, &cdpkit.SnapshotOptions{Interactive: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(snap.Title)
	fmt.Print(snap.Text)
	changes, err := tab.Click(ctx, cdpkit.Ref(snap.RefOf(`button "Greet"`)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(changes)

	// A failed call is an *Error with the code, message, recoverable flag
	// and hint that MCP and the CLI report.
	_, err = tab.Click(ctx, cdpkit.Ref("e99"))
	var e *cdpkit.Error
	if errors.As(err, &e) {
		fmt.Println(e.Code, e.Recoverable, e.Hint)
	}
	// Evaluate is off unless Options.AllowEval, as evaluate_script is.
	_, err = tab.Evaluate(ctx, "() => document.title")
	if errors.As(err, &e) {
		fmt.Println(e.Code)
	}
	// Output:
	// Demo
	// e1 button "Greet"
	// ~ e1 button "Done" focused
	// + e2 link "Hello!"
	// REF_NOT_FOUND true use a ref from this tab's latest snapshot
	// EVAL_DISABLED
}

// The core profile: the tools AddTools adds by default.
func ExampleTools() {
	list, err := cdpkit.Tools(nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range list {
		fmt.Println(t.Name)
	}
	// Output:
	// click
	// fill
	// get_text
	// handle_dialog
	// list_console_messages
	// list_pages
	// navigate_page
	// new_page
	// press_key
	// select_page
	// take_screenshot
	// take_snapshot
	// type_text
	// upload_file
	// wait_for
}
