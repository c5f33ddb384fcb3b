package tools

import "github.com/cdpkit/cdpkit/internal/driver"

// role returns v (a driver.Driver, TabDriver or Backend) as the role R it
// may play, or, when its backend does not play it, the *UnsupportedError
// that names what the call needed.
func role[R any](env *Env, v any, what string) (R, error) {
	r, ok := v.(R)
	if !ok {
		return r, &driver.UnsupportedError{Backend: env.Browsers.Backend().Name(), What: what}
	}
	return r, nil
}
