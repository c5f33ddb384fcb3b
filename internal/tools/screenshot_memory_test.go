package tools

import (
	"bytes"
	"image"
	"image/png"
	"math/rand/v2"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/cdpkit/cdpkit/internal/driver"
)

// heapHeld returns the heap memory the process holds from the OS: in use,
// plus free but not yet returned. RSS follows it.
func heapHeld() uint64 {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	metrics.Read(s)
	var n uint64
	for _, v := range s {
		n += v.Value.Uint64()
	}
	return n
}

// TestInlineImageReturnsMemory checks issue #25 item 17 for the inline
// copy take_screenshot returns: scaling down a large capture (decoded,
// many times its encoded size) hands the memory back to the OS. It runs
// alone, not in parallel with tests that allocate.
func TestInlineImageReturnsMemory(t *testing.T) {
	const side = 2500
	img := image.NewNRGBA(image.Rect(0, 0, side, side))
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(img.Pix); i += 4 {
		v := r.Uint32()
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(v), uint8(v>>8), uint8(v>>16), 255
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	shot := &driver.Screenshot{Data: buf.Bytes(), Format: "png", Width: side, Height: side}
	img = nil
	debug.FreeOSMemory()
	before := heapHeld()
	inline, err := inlineImage(shot)
	if err != nil {
		t.Fatal(err)
	}
	after := heapHeld()
	t.Logf("inline %dx%d %d bytes from %d bytes; heap held %d MB before, %d MB after", inline.Width, inline.Height, len(inline.Data), len(shot.Data), before>>20, after>>20)
	if bound := before + uint64(len(inline.Data)) + 16<<20; after > bound {
		t.Errorf("heap held after inlineImage = %d MB, want at most %d MB", after>>20, bound>>20)
	}
}
