package driver

// PDFOptions say how to print a page to PDF.
type PDFOptions struct {
	Landscape       bool
	PrintBackground bool
	// PageRanges such as "1-5, 8"; empty prints every page.
	PageRanges string
}
