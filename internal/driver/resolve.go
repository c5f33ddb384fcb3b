package driver

// Page describes one open tab.
type Page struct {
	ID     string `json:"id"`
	Index  int    `json:"index"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active"`
	// Crashed says the tab's renderer crashed; navigating it recovers it.
	Crashed bool `json:"crashed,omitempty"`
	// Loading says a tab an action opened has not loaded its first
	// document yet (its URL and title are not known).
	Loading bool `json:"loading,omitempty"`
	// Made says cdpkit opened the tab itself: a tab it created, or the
	// first tab of a browser it launched.
	Made bool `json:"-"`
	// OpenerID is the tab whose page opened this one (a link with
	// target=_blank, window.open); "" for none.
	OpenerID string `json:"-"`
}
