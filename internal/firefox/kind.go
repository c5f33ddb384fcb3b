package firefox

import "github.com/cdpkit/cdpkit/internal/driver"

// Firefox's Kind: what tools it offers follows from the roles these types
// play.
func init() {
	driver.Register(driver.Kind{Name: "firefox", Backend: (*Backend)(nil), Driver: (*Browser)(nil), Tab: (*Tab)(nil)})
}
