package browser

import "github.com/cdpkit/cdpkit/internal/driver"

// Chromium's Kind: what tools it offers follows from the roles these
// types play.
func init() {
	driver.Register(driver.Kind{Name: "chromium", Backend: backend{}, Driver: chromium{}, Tab: (*Tab)(nil)})
}
