package driver

// BlockedError is a navigation the URL guard stopped: the URL (the one
// asked for, or a redirect hop of it) and the policy's reason, which it
// unwraps to (a *policy.URLError).
type BlockedError struct {
	URL string
	Err error
}

func (e *BlockedError) Error() string { return "browser: navigation blocked: " + e.Err.Error() }

func (e *BlockedError) Unwrap() error { return e.Err }
