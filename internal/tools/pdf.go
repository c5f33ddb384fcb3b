package tools

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/cdpkit/cdpkit/internal/driver"
)

type savePDFArgs struct {
	Target          string `json:"target,omitempty"`
	FilePath        string `json:"filePath,omitempty" jsonschema:"file name in the artifact dir, ending in .pdf"`
	Landscape       bool   `json:"landscape,omitempty"`
	PrintBackground bool   `json:"printBackground,omitempty" jsonschema:"print background colors and images"`
	PageRanges      string `json:"pageRanges,omitempty" jsonschema:"such as 1-3, 5; default all"`
}

func pdfTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name:        "save_pdf",
			Description: "Print the page to a PDF file in the artifact dir (path, bytes), as the browser's print dialog would.",
			ReadOnly:    true,
		}, savePDF),
	}
}

func (in *savePDFArgs) check(_ context.Context, env *Env) error {
	if in.FilePath != "" {
		if !strings.EqualFold(filepath.Ext(in.FilePath), ".pdf") {
			return errorf(InvalidArgs, false, "give a filePath ending in .pdf", "filePath %q is not a .pdf", in.FilePath)
		}
		return env.Artifacts.Check(in.FilePath) // before the work whose result it would hold
	}
	return nil
}

type pdfData struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
}

func savePDF(ctx context.Context, env *Env, d *door, in savePDFArgs) (*Result, error) {
	pp, err := role[driver.PDFPrinter](env, d.tab, "PDF")
	if err != nil {
		return nil, err
	}
	name := in.FilePath
	if name == "" {
		id := strings.ToLower(d.tab.ID())
		name = filepath.Join("pdf", time.Now().Format("20060102-150405.000")+"-"+id[:min(6, len(id))]+".pdf")
	}
	progress(ctx, "printing")
	var n int64
	path, err := env.Artifacts.Write(name, func(w io.Writer) error {
		var err error
		n, err = pp.PrintPDF(ctx, driver.PDFOptions{
			Landscape: in.Landscape, PrintBackground: in.PrintBackground, PageRanges: in.PageRanges}, w)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Result{Data: pdfData{Path: path, Bytes: n}}, nil
}
