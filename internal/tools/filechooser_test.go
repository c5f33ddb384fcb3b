package tools

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/cdpkit/cdpkit/internal/browsertest"
)

// TestClickFileInputReportsChooser checks issue #24 item 6: clicking a
// file input says that a file chooser opened, with the input's ref and
// the hint to call upload_file; another click says nothing of it.
func TestClickFileInputReportsChooser(t *testing.T) {
	t.Parallel()
	srv := browsertest.ServerHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>upload</title><label>Photos <input type=file id=f multiple></label><button>Other</button>`)
	}))
	h := newHarness(t, nil)
	h.mustCall(t, "navigate_page", fmt.Sprintf(`{"url":%q}`, srv.URL))
	snap, err := h.result(t, "take_snapshot", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	input := regexp.MustCompile(`(e\d+) button "Photos"`).FindStringSubmatch(snap.Text)
	other := regexp.MustCompile(`(e\d+) button "Other"`).FindStringSubmatch(snap.Text)
	if input == nil || other == nil {
		t.Fatalf("no file input or button in:\n%s", snap.Text)
	}
	res := h.mustCall(t, "click", fmt.Sprintf(`{"uid":%q}`, input[1]))
	fc, _ := res["changes"].(map[string]any)["fileChooser"].(map[string]any)
	if fc == nil || fc["ref"] != input[1] || fc["multiple"] != true || !strings.Contains(fmt.Sprint(fc["hint"]), "upload_file") {
		t.Errorf("click on the file input: changes.fileChooser = %v, want ref %s, multiple, an upload_file hint", fc, input[1])
	}
	res = h.mustCall(t, "click", fmt.Sprintf(`{"uid":%q}`, other[1]))
	if fc := res["changes"].(map[string]any)["fileChooser"]; fc != nil {
		t.Errorf("click on a button: changes.fileChooser = %v, want none", fc)
	}
}
