package tools

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// Capability names something a tool needs from the browser backend. A
// tool whose needs a backend lacks is left out of tools/list and the CLI
// under that backend, rather than failing mid-call.
type Capability string

// Capabilities.
const (
	CapTabs              Capability = "tabs"
	CapNavigate          Capability = "navigate"
	CapSnapshot          Capability = "snapshot"
	CapText              Capability = "text"
	CapInput             Capability = "input"
	CapInputDrag         Capability = "input.drag"
	CapInputScroll       Capability = "input.scroll"
	CapFormsFill         Capability = "forms.fill"
	CapFormsSelect       Capability = "forms.select"
	CapFormsUpload       Capability = "forms.upload"
	CapScreenshot        Capability = "screenshot"
	CapPDF               Capability = "pdf"
	CapEvaluate          Capability = "evaluate"
	CapDialogs           Capability = "dialogs"
	CapWait              Capability = "wait"
	CapConsole           Capability = "console"
	CapNetworkLog        Capability = "network.log"
	CapNetworkMock       Capability = "network.mock"
	CapCookies           Capability = "cookies"
	CapStorageState      Capability = "storage.state"
	CapDownloads         Capability = "downloads"
	CapEmulate           Capability = "emulate"
	CapEmulateViewport   Capability = "emulate.viewport"
	CapTracePerformance  Capability = "trace.performance"
	CapHeapSnapshot      Capability = "heap.snapshot"
	CapAuditLighthouse   Capability = "audit.lighthouse"
	CapCaptureScreencast Capability = "capture.screencast"
	CapInputPoint        Capability = "input.point"
	CapLeases            Capability = "leases"
	// CapUndeclared is what a tool missing from toolNeeds needs: only
	// Chromium, which has every capability, offers it.
	CapUndeclared Capability = "undeclared"
)

// toolNeeds declares, once, what each tool needs from the backend. A tool
// not listed needs CapUndeclared, so a new tool is kept from a backend
// until someone says what it needs. TestToolNeedsMatchHandlers checks it
// against what each handler calls.
var toolNeeds = map[string][]Capability{
	"list_pages": {CapTabs}, "new_page": {CapTabs, CapNavigate}, "select_page": {CapTabs}, "close_page": {CapTabs},
	"navigate_page": {CapNavigate}, "get_url": {CapTabs},
	"take_snapshot": {CapSnapshot}, "find": {CapSnapshot}, "get_text": {CapText},
	"click": {CapInput}, "hover": {CapInput}, "type_text": {CapInput}, "press_key": {CapInput},
	"drag": {CapInputDrag}, "scroll": {CapInputScroll},
	"fill": {CapFormsFill}, "fill_form": {CapFormsFill}, "select_option": {CapFormsSelect}, "upload_file": {CapFormsUpload},
	"take_screenshot":       {CapScreenshot},
	"save_pdf":              {CapPDF},
	"take_heapsnapshot":     {CapHeapSnapshot},
	"lighthouse_audit":      {CapAuditLighthouse, CapCookies}, // the audit browser gets the tab's cookies
	"evaluate_script":       {CapEvaluate},
	"handle_dialog":         {CapDialogs},
	"wait_for":              {CapWait},
	"emulate":               {CapEmulate},
	"resize_page":           {CapEmulateViewport},
	"list_console_messages": {CapConsole}, "get_console_message": {CapConsole},
	"list_network_requests": {CapNetworkLog}, "get_network_request": {CapNetworkLog},
	"mock_request": {CapNetworkMock}, "list_mocks": {CapNetworkMock}, "clear_mocks": {CapNetworkMock},
	"list_cookies": {CapCookies}, "set_cookie": {CapCookies}, "delete_cookies": {CapCookies},
	"save_storage_state": {CapStorageState}, "load_storage_state": {CapStorageState},
	"list_downloads": {CapDownloads},
	"click_at":       {CapInputPoint}, "move_mouse": {CapInputPoint}, "drag_at": {CapInputPoint}, "scroll_at": {CapInputPoint},
	// Tracing reloads (reload), and the start reports the throttling in
	// effect; a recording's first and last frames are screenshots.
	"performance_start_trace": {CapTracePerformance, CapNavigate, CapEmulate}, "performance_stop_trace": {CapTracePerformance},
	"performance_trace": {CapTracePerformance, CapNavigate}, "performance_analyze_insight": {CapTracePerformance},
	"start_screen_recording": {CapCaptureScreencast, CapScreenshot}, "stop_screen_recording": {CapCaptureScreencast, CapScreenshot},
	"claim_page": {CapLeases}, "release_page": {CapLeases}, "list_leases": {CapLeases},
}

// Backends are the browser backends cdpkit drives.
const (
	BackendChromium = "chromium"
	BackendFirefox  = "firefox"
)

// capRoles says, for each capability, which roles of internal/driver a
// backend must play to offer it: what a backend offers follows from the
// methods its types implement (driver.Kind), never from a list of what it
// lacks. A capability missing here is offered by no backend.
var capRoles = map[Capability]func(k driver.Kind) bool{
	CapTabs: core, CapNavigate: core, CapSnapshot: core, CapText: core, CapInput: core,
	CapFormsFill: core, CapFormsSelect: core, CapScreenshot: core, CapEvaluate: core,
	CapDialogs: core, CapWait: core,
	CapLeases:            driverPlays[leaseBackend],
	CapInputDrag:         tabPlays[driver.DragScroller],
	CapInputScroll:       tabPlays[driver.DragScroller],
	CapFormsUpload:       tabPlays[driver.Uploader],
	CapPDF:               tabPlays[driver.PDFPrinter],
	CapConsole:           tabPlays[driver.Console],
	CapNetworkLog:        tabPlays[driver.NetworkLog],
	CapNetworkMock:       both(tabPlays[driver.Mocker], driverPlays[driver.MockLister]),
	CapCookies:           tabPlays[driver.CookieStore],
	CapStorageState:      tabPlays[driver.CookieStore],
	CapDownloads:         driverPlays[driver.DownloadLog],
	CapEmulate:           tabPlays[driver.Emulator],
	CapEmulateViewport:   tabPlays[driver.Emulator],
	CapTracePerformance:  tabPlays[driver.Tracer],
	CapHeapSnapshot:      tabPlays[driver.HeapSnapshotter],
	CapAuditLighthouse:   backendPlays[driver.Auditor],
	CapCaptureScreencast: tabPlays[driver.Screencaster],
	CapInputPoint:        tabPlays[driver.Pointer],
}

// core is what every backend offers: the methods of driver.Driver and
// driver.TabDriver themselves.
func core(driver.Kind) bool { return true }

func tabPlays[R any](k driver.Kind) bool     { _, ok := k.Tab.(R); return ok }
func driverPlays[R any](k driver.Kind) bool  { _, ok := k.Driver.(R); return ok }
func backendPlays[R any](k driver.Kind) bool { _, ok := k.Backend.(R); return ok }

func both(a, b func(driver.Kind) bool) func(driver.Kind) bool {
	return func(k driver.Kind) bool { return a(k) && b(k) }
}

// offers reports whether the backend named offers c: false for a backend
// whose package is not linked in (it registers its driver.Kind).
func offers(backend string, c Capability) bool {
	k, ok := driver.KindOf(backend)
	plays := capRoles[c]
	return ok && plays != nil && plays(k)
}

// ParseBackend checks a backend name: chromium (the default when empty)
// or firefox.
func ParseBackend(s string) (string, error) {
	switch b := strings.ToLower(strings.TrimSpace(s)); b {
	case "", BackendChromium, "chrome":
		return BackendChromium, nil
	case BackendFirefox:
		return b, nil
	}
	return "", fmt.Errorf("browser %q: use chromium or firefox", s)
}

// Needs returns what the tool named needs from the backend.
func Needs(name string) []Capability {
	if n, ok := toolNeeds[name]; ok {
		return n
	}
	return []Capability{CapUndeclared}
}

// Lacks returns, of the capabilities tools need, those the backend named
// does not offer.
func Lacks(backend string) []Capability {
	var out []Capability
	for _, c := range allCapabilities() {
		if !offers(backend, c) {
			out = append(out, c)
		}
	}
	return out
}

// allCapabilities lists the capabilities the tools need, sorted, and
// CapUndeclared.
func allCapabilities() []Capability {
	out := []Capability{CapUndeclared}
	for _, needs := range toolNeeds {
		for _, c := range needs {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Supports reports whether backend can run the tool named.
func Supports(backend, name string) bool {
	for _, c := range Needs(name) {
		if !offers(backend, c) {
			return false
		}
	}
	return true
}

// ForBackend keeps the tools of list that backend can run.
func ForBackend(list []Tool, backend string) []Tool {
	out := make([]Tool, 0, len(list))
	for _, t := range list {
		if Supports(backend, t.Name) {
			out = append(out, t)
		}
	}
	return out
}

func init() {
	typed(func(_ error, e *driver.UnsupportedError) *Error {
		return &Error{Code: Unsupported, Message: e.Backend + " cannot do " + e.What,
			Hint: "leave that argument out, or run cdpkit with --browser chromium"}
	})
}
