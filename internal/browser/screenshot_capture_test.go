package browser

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	cdpapi "github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"golang.org/x/image/webp"

	"github.com/cdpkit/cdpkit/internal/browsertest"
	"github.com/cdpkit/cdpkit/internal/driver"
)

// Colors of the fixtures in testdata/screenshot.
const (
	stripeA    = 0xc00000 // stripes.html: stripe i has color "abcde"[i%5]
	stripeE    = 0x00c0c0
	tallTop    = 0x2050d0 // tall.html
	tallBottom = 0xe0115f
	rtlSidebar = 0x7a1fa2 // rtl.html
	rtlHero    = 0xff8800
	rtlFooter  = 0x004d40
	boxFill    = 0x1e88e5 // element.html, frame-child.html
	boxBorder  = 0xffc107
)

// shotDir, if set, is where the tests save their captures for a look.
var shotDir = os.Getenv("CDPKIT_SCREENSHOT_DIR")

// openShotPage opens path of the fixture server in a new tab.
func openShotPage(t *testing.T, path string) *Tab {
	t.Helper()
	srv := serveFixtures(t)
	_, tab := newTab(t)
	if _, err := tab.Navigate(t.Context(), srv.URL+path); err != nil {
		t.Fatalf("Navigate(%s): %v", path, err)
	}
	return tab
}

// takeShot captures and decodes, checks that the reported size is the
// image's, and logs how long it took.
func takeShot(t *testing.T, tab *Tab, o driver.ScreenshotOptions) (*driver.Screenshot, image.Image) {
	t.Helper()
	start := time.Now()
	shot, err := tab.Screenshot(t.Context(), o)
	if err != nil {
		t.Fatalf("Screenshot(%+v): %v", o, err)
	}
	t.Logf("Screenshot(%+v): %s %dx%d, %d bytes, scale %.3f, %d tile(s), in %v",
		o, shot.Format, shot.Width, shot.Height, len(shot.Data), shot.Scale, shot.Tiles, time.Since(start).Round(time.Millisecond))
	img, format, err := image.Decode(bytes.NewReader(shot.Data))
	if err != nil {
		t.Fatalf("decoding the %s capture: %v", shot.Format, err)
	}
	if format != shot.Format {
		t.Errorf("capture decodes as %s, says %s", format, shot.Format)
	}
	if b := img.Bounds(); b.Dx() != shot.Width || b.Dy() != shot.Height {
		t.Errorf("capture says %dx%d, image is %dx%d", shot.Width, shot.Height, b.Dx(), b.Dy())
	}
	if shotDir != "" {
		name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + "." + shot.Format
		os.WriteFile(filepath.Join(shotDir, name), shot.Data, 0o644)
	}
	return shot, img
}

// rgb returns the pixel at x, y as 0xRRGGBB.
func rgb(img image.Image, x, y int) uint32 {
	r, g, b, _ := img.At(img.Bounds().Min.X+x, img.Bounds().Min.Y+y).RGBA()
	return (r>>8)<<16 | (g>>8)<<8 | b>>8
}

// near reports whether two colors differ by at most tol per channel.
func near(a, b uint32, tol int) bool {
	for shift := 0; shift < 24; shift += 8 {
		d := int(a>>shift&0xff) - int(b>>shift&0xff)
		if d < -tol || d > tol {
			return false
		}
	}
	return true
}

// rowsOf counts the rows whose pixel in column x is color c, and returns
// the first and last of them.
func rowsOf(img image.Image, x int, c uint32) (n, first, last int) {
	first = -1
	for y := 0; y < img.Bounds().Dy(); y++ {
		if near(rgb(img, x, y), c, 2) {
			n++
			if first < 0 {
				first = y
			}
			last = y
		}
	}
	return n, first, last
}

// shotEval evaluates expr in the tab and decodes its value into v.
func shotEval(t *testing.T, tab *Tab, expr string, v any) {
	t.Helper()
	s, err := tab.session(t.Context())
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	yes := true
	res, err := cdpapi.Call(t.Context(), s, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &yes, AwaitPromise: &yes})
	if err != nil || res.ExceptionDetails != nil {
		t.Fatalf("Evaluate(%s): %v %v", expr, err, res.ExceptionDetails)
	}
	if v != nil {
		if err := json.Unmarshal(res.Result.Value, v); err != nil {
			t.Fatalf("Evaluate(%s) = %s: %v", expr, res.Result.Value, err)
		}
	}
}

// scrollTo scrolls the tab and returns window.innerHeight.
func scrollTo(t *testing.T, tab *Tab, y int) (innerHeight int) {
	t.Helper()
	shotEval(t, tab, fmt.Sprintf("window.scrollTo(0, %d); innerHeight", y), &innerHeight)
	return innerHeight
}

func scrollY(t *testing.T, tab *Tab) (y int) {
	t.Helper()
	shotEval(t, tab, "scrollY", &y)
	return y
}

func TestScreenshotScrolledViewport(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/screenshot/stripes.html")
	innerH := scrollTo(t, tab, 3000)

	check := func(t *testing.T, shot *driver.Screenshot, img image.Image) {
		t.Helper()
		// Stripe 15 (color a) starts at y = 3000, the top of the viewport.
		if got := rgb(img, 5, 5); got != stripeA {
			t.Errorf("top-left pixel = %06x, want stripe 15's %06x", got, stripeA)
		}
		colors := map[uint32]bool{}
		for y := 0; y < shot.Height; y += 10 {
			colors[rgb(img, shot.Width/2, y)] = true
		}
		// 720 px from y = 3000 spans stripes 15 to 18.
		if len(colors) < 4 {
			t.Errorf("capture has %d distinct colors down the middle, want the 4 stripes in view", len(colors))
		}
		if y := scrollY(t, tab); y != 3000 {
			t.Errorf("scrollY after the capture = %d, want 3000", y)
		}
	}

	t.Run("full scale", func(t *testing.T) {
		shot, img := takeShot(t, tab, driver.ScreenshotOptions{})
		if shot.Height != innerH || shot.Downscaled || shot.Scale != 1 {
			t.Errorf("capture is %dx%d, scale %v, downscaled %v; want the viewport's height %d at scale 1", shot.Width, shot.Height, shot.Scale, shot.Downscaled, innerH)
		}
		check(t, shot, img)
	})
	t.Run("downscaled", func(t *testing.T) {
		const maxPixels = 200_000
		shot, img := takeShot(t, tab, driver.ScreenshotOptions{MaxPixels: maxPixels})
		if shot.Width*shot.Height > maxPixels || !shot.Downscaled {
			t.Errorf("capture is %dx%d (downscaled %v), want at most %d pixels", shot.Width, shot.Height, shot.Downscaled, maxPixels)
		}
		check(t, shot, img)
	})
}

func TestScreenshotFullPageTall(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/screenshot/tall.html")
	var size [2]float64
	shotEval(t, tab, "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]", &size)
	if size[1] != 20000 {
		t.Fatalf("page height = %v, want 20000", size[1])
	}
	scrollTo(t, tab, 777)

	tests := []struct {
		name      string
		o         driver.ScreenshotOptions
		wantTiles bool
	}{
		// 1280 × 20000 is over the default pixel limit: downscaled into one capture.
		{"default limits", driver.ScreenshotOptions{FullPage: true}, false},
		// Full size is over Chrome's 16384-pixel capture height: tiles.
		{"full size in tiles", driver.ScreenshotOptions{FullPage: true, MaxPixels: 1280 * 20000}, true},
		// Oversized for a small limit: downscaled, never cropped.
		{"small limit", driver.ScreenshotOptions{FullPage: true, MaxPixels: 1_000_000}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shot, img := takeShot(t, tab, tt.o)
			want, got := size[0]/size[1], float64(shot.Width)/float64(shot.Height)
			if math.Abs(got-want)/want > 0.02 {
				t.Errorf("aspect ratio = %dx%d = %.4f, want the page's %.4f within 2%%", shot.Width, shot.Height, got, want)
			}
			if max := tt.o.MaxPixels; max == 0 && shot.Width*shot.Height > driver.DefaultMaxScreenshotPixels || max > 0 && shot.Width*shot.Height > max {
				t.Errorf("capture has %d pixels, over the limit", shot.Width*shot.Height)
			}
			if tiled := shot.Tiles > 1; tiled != tt.wantTiles {
				t.Errorf("capture took %d tiles, want tiling %v", shot.Tiles, tt.wantTiles)
			}
			if got := rgb(img, shot.Width/2, 2); !near(got, tallTop, 2) {
				t.Errorf("top pixel = %06x, want the top marker %06x", got, tallTop)
			}
			// The bottom marker is the last 2% of the page.
			for _, y := range []int{shot.Height - 2, shot.Height - shot.Height/100} {
				if got := rgb(img, shot.Width/2, y); !near(got, tallBottom, 2) {
					t.Errorf("pixel at row %d of %d = %06x, want the bottom marker %06x", y, shot.Height, got, tallBottom)
				}
			}
			// No gap between tiles: every row is painted.
			for y := 0; y < shot.Height; y++ {
				if _, _, _, a := img.At(shot.Width/2, y).RGBA(); a != 0xffff {
					t.Fatalf("row %d is not painted (alpha %d)", y, a>>8)
				}
			}
			if y := scrollY(t, tab); y != 777 {
				t.Errorf("scrollY after the capture = %d, want it restored to 777", y)
			}
		})
	}
}

func TestScreenshotFullPageFixedAndVH(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/screenshot/rtl.html")
	innerH := scrollTo(t, tab, 500)
	var pageH int
	shotEval(t, tab, "document.documentElement.scrollHeight", &pageH)

	shot, img := takeShot(t, tab, driver.ScreenshotOptions{FullPage: true})
	if shot.Height != pageH {
		t.Fatalf("capture height = %d, want the page height %d", shot.Height, pageH)
	}
	// height: 100vh is the viewport's height, not the page's.
	if n, first, _ := rowsOf(img, 10, rtlHero); n != innerH || first != 0 {
		t.Errorf("hero spans %d rows from row %d, want the viewport height %d from row 0", n, first, innerH)
	}
	// The fixed sidebar (top: 0; bottom: 0; right: 0 in an RTL page) is
	// painted once, one viewport tall, where the page was scrolled to.
	if n, first, last := rowsOf(img, shot.Width-10, rtlSidebar); n != innerH || first != 500 || last != 500+innerH-1 {
		t.Errorf("sidebar spans %d rows [%d, %d], want one band of %d rows at [500, %d]", n, first, last, innerH, 500+innerH-1)
	}
	if got := rgb(img, shot.Width-10, shot.Height-5); !near(got, rtlFooter, 2) {
		t.Errorf("bottom-right pixel = %06x, want the footer %06x, not the sidebar", got, rtlFooter)
	}
	if y := scrollY(t, tab); y != 500 {
		t.Errorf("scrollY after the capture = %d, want it restored to 500", y)
	}
	var vh int
	shotEval(t, tab, "innerHeight", &vh)
	if vh != innerH {
		t.Errorf("innerHeight after the capture = %d, want %d unchanged", vh, innerH)
	}
}

func TestScreenshotLazyContent(t *testing.T) {
	// Not parallel: what it checks needs the tab to render as the visible
	// one, and parallel tests keep taking other tabs to the front.
	tab := openShotPage(t, "/screenshot/lazy.html")
	shot, img := takeShot(t, tab, driver.ScreenshotOptions{FullPage: true})
	// #late turns green only once it has been scrolled into view.
	if got := rgb(img, 10, shot.Height-10); got != 0x00c853 {
		t.Errorf("lazy block = %06x, want it painted 00c853 by the scroll through", got)
	}
	if y := scrollY(t, tab); y != 0 {
		t.Errorf("scrollY after the capture = %d, want it restored to 0", y)
	}
}

func TestScreenshotElement(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/screenshot/element.html")

	shot, img := takeShot(t, tab, driver.ScreenshotOptions{Selector: "#box"})
	// 300 × 150 plus a 5px border on each side.
	if shot.Width != 310 || shot.Height != 160 {
		t.Errorf("element capture is %dx%d, want its border box 310x160", shot.Width, shot.Height)
	}
	if got := rgb(img, 2, 2); got != boxBorder {
		t.Errorf("corner pixel = %06x, want the border %06x", got, boxBorder)
	}
	if got := rgb(img, shot.Width/2, shot.Height/2); got != boxFill {
		t.Errorf("center pixel = %06x, want the fill %06x", got, boxFill)
	}
	if got := rgb(img, shot.Width-3, shot.Height-3); got != boxBorder {
		t.Errorf("bottom-right pixel = %06x, want the border %06x", got, boxBorder)
	}

	errTests := []struct {
		o    driver.ScreenshotOptions
		want error
	}{
		{driver.ScreenshotOptions{Selector: "#hidden"}, driver.ErrElementNotVisible},
		{driver.ScreenshotOptions{Selector: "#nope"}, driver.ErrElementNotFound},
		{driver.ScreenshotOptions{Selector: "[[["}, driver.ErrInvalidArgument},
		{driver.ScreenshotOptions{Ref: "e999999"}, driver.ErrRefNotFound},
		{driver.ScreenshotOptions{Selector: "#box", FullPage: true}, driver.ErrInvalidArgument},
		{driver.ScreenshotOptions{Selector: "#box", Ref: "e1"}, driver.ErrInvalidArgument},
		{driver.ScreenshotOptions{Format: "gif"}, driver.ErrInvalidArgument},
		{driver.ScreenshotOptions{Quality: 50}, driver.ErrInvalidArgument},
		{driver.ScreenshotOptions{Format: "jpeg", Quality: 101}, driver.ErrInvalidArgument},
	}
	for _, tt := range errTests {
		if _, err := tab.Screenshot(t.Context(), tt.o); !errors.Is(err, tt.want) {
			t.Errorf("Screenshot(%+v) error = %v, want %v", tt.o, err, tt.want)
		}
	}
}

// TestScreenshotElementInFrame captures a button by its snapshot ref inside
// a same-process iframe and inside an out-of-process one, whose box is
// relative to its own frame.
func TestScreenshotElementInFrame(t *testing.T) {
	t.Parallel()
	srv := serveFixtures(t)
	cross := func(t *testing.T) string {
		// 127.0.0.2 and 127.0.0.5 are other sites than 127.0.0.1, so the
		// frame gets a renderer of its own. Chromium puts a frame in an
		// existing renderer of its site: on 127.0.0.1 that would be
		// another test's page, busy or hung on purpose.
		listen := func(addr string, h http.Handler) string {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				t.Skipf("no second loopback address for a cross-site frame: %v", err)
			}
			s := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h}}
			s.Start()
			t.Cleanup(s.Close)
			return s.URL
		}
		child := listen("127.0.0.5:0", srv.Config.Handler)
		return listen("127.0.0.2:0", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			page, _ := os.ReadFile("testdata/screenshot/frame-same.html")
			fmt.Fprint(w, strings.Replace(string(page), `src="frame-child.html"`, `src="`+child+`/screenshot/frame-child.html"`, 1))
		})) + "/"
	}
	tests := []struct {
		name string
		url  func(t *testing.T) string
		oop  bool
	}{
		{"same process", func(*testing.T) string { return srv.URL + "/screenshot/frame-same.html" }, false},
		{"out of process", cross, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := tt.url(t)
			b, tab := newTab(t)
			// Another tab opened after this one, as an agent's second
			// tab or a parallel test's: this one loads its frames behind
			// it, and its capture must still hold the frame's pixels.
			other, err := b.NewTab(t.Context())
			if err != nil {
				t.Fatalf("NewTab: %v", err)
			}
			t.Cleanup(func() { closeTab(t, b, other) })
			if _, err := tab.Navigate(t.Context(), url); err != nil {
				t.Fatalf("Navigate: %v", err)
			}
			var ref string
			browsertest.Eventually(t, waitLimit, func() error {
				res, err := tab.Snapshot(t.Context(), driver.SnapshotOptions{})
				if err != nil {
					return fmt.Errorf("Snapshot: %w", err)
				}
				if m := regexp.MustCompile(`(e\d+) button "Framed"`).FindStringSubmatch(res.Text); m != nil {
					ref = m[1]
					return nil
				}
				return errors.New("no ref for the framed button in the snapshot")
			})
			if ref == "" {
				t.Fatal("no ref for the framed button in the snapshot")
			}
			tab.fmu.Lock()
			frames := len(tab.frames)
			tab.fmu.Unlock()
			if oop := frames > 0; oop != tt.oop {
				t.Fatalf("out-of-process frames: %d, want some: %v", frames, tt.oop)
			}
			shot, img := takeShot(t, tab, driver.ScreenshotOptions{Ref: ref})
			if shot.Width != 200 || shot.Height != 60 {
				t.Errorf("button capture is %dx%d, want its border box 200x60 (buttons are border-box)", shot.Width, shot.Height)
			}
			for _, p := range []struct {
				x, y int
				want uint32
			}{{1, 1, boxBorder}, {shot.Width / 2, shot.Height / 2, boxFill}, {shot.Width - 2, shot.Height - 2, boxBorder}} {
				if got := rgb(img, p.x, p.y); got != p.want {
					t.Errorf("pixel (%d, %d) = %06x, want %06x", p.x, p.y, got, p.want)
				}
			}
		})
	}
}

func TestScreenshotFormats(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/screenshot/element.html")
	for _, o := range []driver.ScreenshotOptions{
		{Format: "jpeg"},
		{Format: "jpeg", Quality: 30, Selector: "#box"},
		{Format: "webp"},
		{Format: "webp", Quality: 30, Selector: "#box"},
	} {
		t.Run(fmt.Sprintf("%s q%d %s", o.Format, o.Quality, o.Selector), func(t *testing.T) {
			shot, img := takeShot(t, tab, o)
			want := o.Quality
			if want == 0 {
				want = 80
			}
			if shot.Quality != want {
				t.Errorf("Quality = %d, want %d", shot.Quality, want)
			}
			if o.Selector != "" {
				if got := rgb(img, shot.Width/2, shot.Height/2); !near(got, boxFill, 16) {
					t.Errorf("center pixel = %06x, want about %06x", got, boxFill)
				}
			}
			if o.Format == "webp" {
				if _, err := webp.Decode(bytes.NewReader(shot.Data)); err != nil {
					t.Errorf("webp.Decode: %v", err)
				}
			}
		})
	}
}

func TestScreenshotByteLimit(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/paint.html")
	full, _ := takeShot(t, tab, driver.ScreenshotOptions{})

	limit := len(full.Data) / 3
	shot, _ := takeShot(t, tab, driver.ScreenshotOptions{MaxBytes: limit})
	if len(shot.Data) > limit || !shot.Downscaled || shot.Width >= full.Width {
		t.Errorf("capture under a %d-byte limit is %d bytes at %dx%d (downscaled %v), want it downscaled to fit",
			limit, len(shot.Data), shot.Width, shot.Height, shot.Downscaled)
	}
	// Same aspect ratio: shrunk, not cropped.
	if a, b := float64(full.Width)/float64(full.Height), float64(shot.Width)/float64(shot.Height); math.Abs(a-b)/a > 0.02 {
		t.Errorf("aspect ratio %.3f, want %.3f", b, a)
	}

	jpegFull, _ := takeShot(t, tab, driver.ScreenshotOptions{Format: "jpeg", Quality: 95})
	limit = len(jpegFull.Data) * 2 / 3
	shot, _ = takeShot(t, tab, driver.ScreenshotOptions{Format: "jpeg", Quality: 95, MaxBytes: limit})
	if len(shot.Data) > limit || shot.Quality >= 95 {
		t.Errorf("jpeg under a %d-byte limit is %d bytes at quality %d, want a lower quality that fits", limit, len(shot.Data), shot.Quality)
	}

	_, err := tab.Screenshot(t.Context(), driver.ScreenshotOptions{MaxBytes: 100})
	var tl *driver.ScreenshotTooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, driver.ErrScreenshotTooLarge) || tl.Limit != 100 || tl.Bytes <= 100 {
		t.Errorf("Screenshot under a 100-byte limit: error %v, want a ScreenshotTooLargeError", err)
	}
}

// TestScreenshotTilesMatchOneCapture stitches a page from small tiles and
// compares it with one capture of the whole page.
func TestScreenshotTilesMatchOneCapture(t *testing.T) {
	t.Parallel()
	tab := openShotPage(t, "/screenshot/stripes.html")
	whole, want := takeShot(t, tab, driver.ScreenshotOptions{FullPage: true})
	tiled, got := takeShot(t, tab, driver.ScreenshotOptions{FullPage: true, MaxTile: 3000})
	if tiled.Tiles < 3 {
		t.Errorf("tiled capture took %d tiles, want at least 3 of at most 3000 px for 8000 px", tiled.Tiles)
	}
	if tiled.Width != whole.Width || tiled.Height != whole.Height {
		t.Fatalf("tiled capture is %dx%d, one capture %dx%d", tiled.Width, tiled.Height, whole.Width, whole.Height)
	}
	for y := 0; y < whole.Height; y++ {
		if a, b := rgb(got, 5, y), rgb(want, 5, y); a != b {
			t.Fatalf("row %d: tiled %06x, one capture %06x", y, a, b)
		}
	}

	// At a fractional scale tile edges fall between pixels: no row may be
	// left unpainted.
	small, img := takeShot(t, tab, driver.ScreenshotOptions{FullPage: true, MaxPixels: 1_234_567, MaxTile: 999})
	if small.Tiles < 3 {
		t.Errorf("capture took %d tiles, want several", small.Tiles)
	}
	for y := 0; y < small.Height; y++ {
		if _, _, _, a := img.At(5, y).RGBA(); a != 0xffff {
			t.Fatalf("row %d of %d is not painted (alpha %d)", y, small.Height, a>>8)
		}
	}
	if got := rgb(img, 5, small.Height-2); !near(got, stripeE, 2) {
		t.Errorf("bottom pixel = %06x, want the last stripe's %06x", got, stripeE)
	}
}
