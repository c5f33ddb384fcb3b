package driver

// Location is where a tab is.
type Location struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}
