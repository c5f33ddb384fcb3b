package browser

import (
	"fmt"
	"math"
	"strings"

	"github.com/chromedp/cdproto/dom"
)

// point is a position in CSS pixels.
type point struct{ X, Y float64 }

// maxClickPoints bounds the points hit-tested for one element.
const maxClickPoints = 10

// quadFractions are where in a quad a click is tried, in order: the center,
// then the centers of the four quadrants.
var quadFractions = [][2]float64{{0.5, 0.5}, {0.25, 0.25}, {0.75, 0.25}, {0.25, 0.75}, {0.75, 0.75}}

// clickPoints returns the points worth hit-testing on an element whose
// content quads are quads (one per box fragment, such as the lines of a
// wrapped link; x1 y1 … x4 y4 clockwise from the top left), offset by
// (dx, dy): the center and the quadrant centers of each quad of at least
// one square pixel that lie in the viewport vw × vh, floored to whole
// pixels (a hit test takes integers; the pixel at x covers [x, x+1)),
// without duplicates, at most maxClickPoints.
func clickPoints(quads []dom.Quad, dx, dy, vw, vh float64) []point {
	var out []point
	seen := make(map[point]bool)
	for _, q := range quads {
		if len(q) < 8 || quadArea(q) < 1 {
			continue
		}
		for _, f := range quadFractions {
			p := quadPoint(q, f[0], f[1])
			p = point{math.Floor(p.X + dx), math.Floor(p.Y + dy)}
			if p.X < 0 || p.Y < 0 || p.X >= vw || p.Y >= vh || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
			if len(out) == maxClickPoints {
				return out
			}
		}
	}
	return out
}

// quadPoint returns the point at fractions (u, v) across and down a quad,
// which a transform may have turned or skewed.
func quadPoint(q dom.Quad, u, v float64) point {
	lerp := func(a, b, t float64) float64 { return a + (b-a)*t }
	topX, topY := lerp(q[0], q[2], u), lerp(q[1], q[3], u)
	botX, botY := lerp(q[6], q[4], u), lerp(q[7], q[5], u)
	return point{lerp(topX, botX, v), lerp(topY, botY, v)}
}

// quadArea returns the area of a quad (shoelace formula).
func quadArea(q dom.Quad) float64 {
	var a float64
	for i := 0; i < 8; i += 2 {
		j := (i + 2) % 8
		a += q[i]*q[j+1] - q[j]*q[i+1]
	}
	return math.Abs(a) / 2
}

// sameQuads reports whether two reads of an element's quads agree to a
// hundredth of a pixel: the element has stopped moving.
func sameQuads(a, b []dom.Quad) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if math.Abs(a[i][j]-b[i][j]) > 0.01 {
				return false
			}
		}
	}
	return true
}

// quadsBounds returns the bounding rectangle of all quads.
func quadsBounds(quads []dom.Quad) (rect, bool) {
	var all dom.Quad
	for _, q := range quads {
		all = append(all, q...)
	}
	if len(all) == 0 {
		return rect{}, false
	}
	return quadBounds(all), true
}

// viewportOverlap reports whether r shows in the viewport vw × vh at all,
// and whether it shows whole.
func viewportOverlap(r rect, vw, vh float64) (in, fully bool) {
	in = r.X < vw && r.Y < vh && r.X+r.W > 0 && r.Y+r.H > 0 && r.W > 0 && r.H > 0
	fully = in && r.X >= 0 && r.Y >= 0 && r.X+r.W <= vw && r.Y+r.H <= vh
	return in, fully
}

// nodeInfo describes the element at a hit-tested point, as hitTestJS
// reports it.
type nodeInfo struct {
	Inside   bool     `json:"inside"`   // the element clicked, or inside it
	Ancestor bool     `json:"ancestor"` // an ancestor of the element clicked
	Tag      string   `json:"tag"`
	ID       string   `json:"id"`
	Classes  []string `json:"classes"`
	Text     string   `json:"text"`
}

// maxDescribedClasses and maxDescribedText bound describe's output.
const (
	maxDescribedClasses = 3
	maxDescribedText    = 40
)

// describe names an element for an agent, CSS-like, with the start of its
// text: `div#overlay.modal "Accept cookies"`.
func (n nodeInfo) describe() string {
	var b strings.Builder
	b.WriteString(n.Tag)
	if b.Len() == 0 {
		b.WriteString("element")
	}
	if n.ID != "" {
		b.WriteString("#" + n.ID)
	}
	for i, c := range n.Classes {
		if i == maxDescribedClasses {
			b.WriteString(".…")
			break
		}
		b.WriteString("." + c)
	}
	if t := strings.Join(strings.Fields(n.Text), " "); t != "" {
		if r := []rune(t); len(r) > maxDescribedText {
			t = string(r[:maxDescribedText]) + "…"
		}
		fmt.Fprintf(&b, " %q", t)
	}
	return b.String()
}
