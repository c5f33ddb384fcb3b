package driver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
)

// StorageState is a browser context's cookies and the localStorage of
// origins, in the shape Playwright's storageState uses, so files move
// between tools. Cookie expires is seconds since the epoch, -1 for a
// session cookie.
type StorageState struct {
	Cookies []StateCookie `json:"cookies"`
	Origins []StateOrigin `json:"origins"`
}

// StateCookie is a cookie of a [StorageState].
type StateCookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"` // Strict, Lax or None
}

// NewStorageState is a state holding cookies (a session cookie's expires
// becomes -1, an unset SameSite Lax, as browsers treat it) and no origin
// yet.
func NewStorageState(cookies []Cookie) *StorageState {
	st := &StorageState{Cookies: make([]StateCookie, 0, len(cookies)), Origins: []StateOrigin{}}
	for _, c := range cookies {
		exp := c.Expires
		if exp == 0 {
			exp = -1
		}
		st.Cookies = append(st.Cookies, StateCookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: exp,
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: cmp.Or(c.SameSite, "Lax")})
	}
	return st
}

// StateOrigin is an origin's localStorage.
type StateOrigin struct {
	Origin       string      `json:"origin"`
	LocalStorage []StateItem `json:"localStorage"`
}

// StateItem is one localStorage entry.
type StateItem struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ParseStorageState decodes and validates a storage state file. A
// malformed one wraps ErrInvalidArgument, naming what is wrong.
func ParseStorageState(data []byte) (*StorageState, error) {
	var st StorageState
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("%w: not a storage state (cookies and origins): %v", ErrInvalidArgument, err)
	}
	for i, c := range st.Cookies {
		spec := CookieSpec{Cookie: Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly,
			Secure: c.Secure, SameSite: c.SameSite}}
		if c.Expires > 0 {
			spec.Expires = c.Expires
		}
		if err := CheckCookie(&spec); err != nil {
			return nil, fmt.Errorf("cookie %d (%s): %w", i, c.Name, err)
		}
	}
	for i, o := range st.Origins {
		u, err := url.Parse(o.Origin)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || (u.Path != "" && u.Path != "/") {
			return nil, fmt.Errorf("%w: origin %d %q is not an http(s) origin", ErrInvalidArgument, i, o.Origin)
		}
	}
	return &st, nil
}
