package cdpkit

import "context"

// Cookie is a cookie of a tab's browser context. To set one, give Name,
// Value and URL (or Domain, and Path).
type Cookie struct {
	Name   string `json:"name"`
	Value  string `json:"value,omitempty"`
	URL    string `json:"url,omitempty"` // for SetCookie: the URL it belongs to
	Domain string `json:"domain,omitempty"`
	Path   string `json:"path,omitempty"`
	// Expires is in seconds since the epoch; zero is a session cookie.
	Expires      float64 `json:"expires,omitempty"`
	HTTPOnly     bool    `json:"httpOnly,omitempty"`
	Secure       bool    `json:"secure,omitempty"`
	SameSite     string  `json:"sameSite,omitempty"`     // Strict, Lax or None
	PartitionKey string  `json:"partitionKey,omitempty"` // top-level site of a partitioned (CHIPS) cookie
	Size         int     `json:"size,omitempty"`         // reported by Cookies
}

// Cookies lists the cookies of the tab's browser context, httpOnly ones
// included, or only those that urls would send.
func (t *Tab) Cookies(ctx context.Context, urls ...string) ([]Cookie, error) {
	var out struct {
		Cookies []Cookie `json:"cookies"`
	}
	args := map[string]any{}
	if len(urls) > 0 {
		args["urls"] = urls
	}
	if err := t.call(ctx, "list_cookies", args, &out); err != nil {
		return nil, err
	}
	return out.Cookies, nil
}

// SetCookie sets c in the tab's browser context.
func (t *Tab) SetCookie(ctx context.Context, c Cookie) error {
	return t.call(ctx, "set_cookie", map[string]any{"name": c.Name, "value": c.Value, "url": c.URL, "domain": c.Domain,
		"path": c.Path, "expires": c.Expires, "httpOnly": c.HTTPOnly, "secure": c.Secure, "sameSite": c.SameSite,
		"partitionKey": c.PartitionKey}, nil)
}

// DeleteCookies deletes the cookies named name of url (or of the domain
// and path c gives), and returns how many went. A zero c is refused; use
// ClearCookies to delete them all.
func (t *Tab) DeleteCookies(ctx context.Context, c Cookie) (int, error) {
	return t.deleteCookies(ctx, map[string]any{"name": c.Name, "url": c.URL, "domain": c.Domain, "path": c.Path})
}

// ClearCookies deletes every cookie of the tab's browser context.
func (t *Tab) ClearCookies(ctx context.Context) (int, error) {
	return t.deleteCookies(ctx, map[string]any{"all": true})
}

func (t *Tab) deleteCookies(ctx context.Context, args map[string]any) (int, error) {
	var out struct {
		Deleted int `json:"deleted"`
	}
	if err := t.call(ctx, "delete_cookies", args, &out); err != nil {
		return 0, err
	}
	return out.Deleted, nil
}

// StorageState describes a storage state file (cookies and localStorage
// in Playwright's storageState JSON) that was saved or loaded.
type StorageState struct {
	Path    string   `json:"path"`
	Cookies int      `json:"cookies"`
	Origins []string `json:"origins"` // each with its number of localStorage keys
}

// SaveStorageState writes the cookies of the tab's browser context and
// the localStorage of its open origins to path in the artifact dir; load
// it later with LoadStorageState or Options.StorageState.
func (t *Tab) SaveStorageState(ctx context.Context, path string) (*StorageState, error) {
	return t.storageState(ctx, "save_storage_state", path)
}

// LoadStorageState loads a storage state file from the artifact dir into
// the tab's browser context.
func (t *Tab) LoadStorageState(ctx context.Context, path string) (*StorageState, error) {
	return t.storageState(ctx, "load_storage_state", path)
}

func (t *Tab) storageState(ctx context.Context, tool, path string) (*StorageState, error) {
	var s StorageState
	if err := t.call(ctx, tool, map[string]any{"path": path}, &s); err != nil {
		return nil, err
	}
	return &s, nil
}
