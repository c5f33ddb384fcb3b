package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cdpkit/cdpkit/internal/driver"
	"github.com/cdpkit/cdpkit/internal/policy"
)

// maxStateBytes bounds a storage state file.
const maxStateBytes = 20 << 20

type listCookiesArgs struct {
	Target   string   `json:"target,omitempty"`
	URLs     []string `json:"urls,omitempty" jsonschema:"only cookies these urls would send; default all of the tab's browser context"`
	SavePath string   `json:"savePath,omitempty" jsonschema:"write the cookies with their values to this file in the artifact dir; return names and metadata only"`
}

type setCookieArgs struct {
	Target       string  `json:"target,omitempty"`
	Name         string  `json:"name"`
	Value        string  `json:"value"`
	URL          string  `json:"url,omitempty" jsonschema:"the url it belongs to; or give domain"`
	Domain       string  `json:"domain,omitempty"`
	Path         string  `json:"path,omitempty"`
	Expires      float64 `json:"expires,omitempty" jsonschema:"seconds since the epoch; default a session cookie"`
	HTTPOnly     bool    `json:"httpOnly,omitempty"`
	Secure       bool    `json:"secure,omitempty"`
	SameSite     string  `json:"sameSite,omitempty" jsonschema:"Strict, Lax or None"`
	PartitionKey string  `json:"partitionKey,omitempty" jsonschema:"top-level site of a partitioned (CHIPS) cookie, https://example.com"`
}

type deleteCookiesArgs struct {
	Target string `json:"target,omitempty"`
	Name   string `json:"name,omitempty" jsonschema:"the cookie's name, with url or domain"`
	URL    string `json:"url,omitempty"`
	Domain string `json:"domain,omitempty"`
	Path   string `json:"path,omitempty"`
	All    bool   `json:"all,omitempty" jsonschema:"delete every cookie of the tab's browser context"`
}

type storageStateArgs struct {
	Target string `json:"target,omitempty"`
	Path   string `json:"path" jsonschema:"file in the artifact dir (Playwright storageState JSON)"`
}

func cookieTools() []Tool {
	return []Tool{
		defineOn(Tool{
			Name: "list_cookies",
			Description: "Cookies of the tab's browser context, httpOnly included, or those urls would send. " +
				"savePath writes the values to a file and returns names and metadata only, keeping secrets out of the transcript.",
			ReadOnly: true,
		}, listCookies),
		defineOn(Tool{
			Name:        "set_cookie",
			Description: "Set a cookie in the tab's browser context: name, value, and url or domain (+path); expires, httpOnly, secure, sameSite, partitionKey.",
			Idempotent:  true,
		}, setCookie),
		defineOn(Tool{
			Name:        "delete_cookies",
			Description: "Delete cookies: by name with url or domain (+path), or all of the tab's browser context.",
			Destructive: true,
			Idempotent:  true,
		}, deleteCookies),
		defineOn(Tool{
			Name: "save_storage_state",
			Description: "Write the tab's browser context's cookies and the localStorage of its open origins to a file " +
				"(Playwright storageState JSON); values stay out of the result.",
			ReadOnly: true,
		}, saveStorageState),
		defineOn(Tool{
			Name:        "load_storage_state",
			Description: "Load a storage state file (cookies + localStorage, Playwright storageState JSON) into the tab's browser context: log in once, reuse it.",
		}, loadStorageState),
	}
}

type cookieMeta struct {
	Name         string  `json:"name"`
	Domain       string  `json:"domain"`
	Path         string  `json:"path"`
	Expires      float64 `json:"expires,omitempty"`
	HTTPOnly     bool    `json:"httpOnly,omitempty"`
	Secure       bool    `json:"secure,omitempty"`
	SameSite     string  `json:"sameSite,omitempty"`
	PartitionKey string  `json:"partitionKey,omitempty"`
	Size         int     `json:"size,omitempty"`
}

func listCookies(ctx context.Context, env *Env, d *door, in listCookiesArgs) (*Result, error) {
	for _, u := range in.URLs {
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			return nil, errorf(InvalidArgs, false, "give http or https urls", "url %q is not an http(s) url", u)
		}
	}
	if in.SavePath != "" {
		if err := env.Artifacts.Check(in.SavePath); err != nil {
			return nil, err
		}
	}
	tab := d.tab
	cs, err := role[driver.CookieStore](env, tab, "cookies")
	if err != nil {
		return nil, err
	}
	cookies, err := cs.Cookies(ctx, in.URLs)
	if err != nil {
		return nil, err
	}
	if in.SavePath == "" {
		return &Result{Data: struct {
			Cookies []driver.Cookie `json:"cookies"`
		}{cookies}}, nil
	}
	data, err := json.MarshalIndent(cookies, "", "  ")
	if err != nil {
		return nil, err
	}
	path, err := env.Artifacts.WriteFile(in.SavePath, append(data, '\n'))
	if err != nil {
		return nil, err
	}
	meta := make([]cookieMeta, 0, len(cookies))
	for _, c := range cookies {
		meta = append(meta, cookieMeta{Name: c.Name, Domain: c.Domain, Path: c.Path, Expires: c.Expires, HTTPOnly: c.HTTPOnly,
			Secure: c.Secure, SameSite: c.SameSite, PartitionKey: c.PartitionKey, Size: c.Size})
	}
	return &Result{Data: struct {
		Path    string       `json:"path"`
		Cookies []cookieMeta `json:"cookies"`
	}{path, meta}}, nil
}

// browserArgError turns an error of the browser's argument checks into
// INVALID_ARGS with hint; other errors pass through.
func browserArgError(err error, hint string) error {
	if errors.Is(err, driver.ErrInvalidArgument) {
		msg := err.Error()
		msg = strings.Replace(msg, driver.ErrInvalidArgument.Error()+": ", "", 1)
		return errorf(InvalidArgs, false, hint, "%s", msg)
	}
	return err
}

func setCookie(ctx context.Context, env *Env, d *door, in setCookieArgs) (*Result, error) {
	tab := d.tab
	spec := driver.CookieSpec{URL: in.URL, Cookie: driver.Cookie{Name: in.Name, Value: in.Value, Domain: in.Domain, Path: in.Path,
		Expires: in.Expires, HTTPOnly: in.HTTPOnly, Secure: in.Secure, SameSite: in.SameSite, PartitionKey: in.PartitionKey}}
	cs, err := role[driver.CookieStore](env, tab, "cookies")
	if err != nil {
		return nil, err
	}
	if err := cs.SetCookie(ctx, spec); err != nil {
		return nil, browserArgError(err, "see set_cookie's input schema; a secure cookie needs an https url")
	}
	return &Result{Data: struct {
		Set string `json:"set"`
	}{in.Name}}, nil
}

func deleteCookies(ctx context.Context, env *Env, d *door, in deleteCookiesArgs) (*Result, error) {
	switch {
	case in.All && (in.Name != "" || in.URL != "" || in.Domain != ""):
		return nil, errorf(InvalidArgs, false, "give all alone, or name with url or domain", "all does not go with name, url or domain")
	case !in.All && in.Name == "":
		return nil, errorf(InvalidArgs, false, "give name with url or domain, or all:true", "name is missing")
	case !in.All && (in.URL == "") == (in.Domain == ""):
		return nil, errorf(InvalidArgs, false, "give name with url or with domain (and path)", "give url or domain with name, one of them")
	}
	tab := d.tab
	cs, err := role[driver.CookieStore](env, tab, "cookies")
	if err != nil {
		return nil, err
	}
	n, err := cs.DeleteCookies(ctx, in.Name, in.URL, in.Domain, in.Path)
	if err != nil {
		return nil, browserArgError(err, "see delete_cookies' input schema")
	}
	return &Result{Data: struct {
		Deleted int `json:"deleted"`
	}{n}}, nil
}

func saveStorageState(ctx context.Context, env *Env, d *door, in storageStateArgs) (*Result, error) {
	if err := env.Artifacts.Check(in.Path); err != nil {
		return nil, err
	}
	tab := d.tab
	cs, err := role[driver.CookieStore](env, tab, "storage state")
	if err != nil {
		return nil, err
	}
	st, err := cs.SaveStorageState(ctx)
	if err != nil {
		return nil, err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	path, err := env.Artifacts.WriteFile(in.Path, append(data, '\n'))
	if err != nil {
		return nil, err
	}
	return &Result{Data: stateSummary(path, st)}, nil
}

type stateInfo struct {
	Path    string   `json:"path"`
	Cookies int      `json:"cookies"`
	Origins []string `json:"origins"`
}

func stateSummary(path string, st *driver.StorageState) stateInfo {
	info := stateInfo{Path: path, Cookies: len(st.Cookies), Origins: []string{}}
	for _, o := range st.Origins {
		info.Origins = append(info.Origins, fmt.Sprintf("%s (%d keys)", o.Origin, len(o.LocalStorage)))
	}
	return info
}

func loadStorageState(ctx context.Context, env *Env, d *door, in storageStateArgs) (*Result, error) {
	data, err := env.Artifacts.ReadFile(ctx, in.Path, maxStateBytes)
	if errors.Is(err, policy.ErrTooLarge) {
		return nil, errorf(InvalidArgs, false, "a storage state file is at most 20 MB", "%s is too large", in.Path)
	}
	if err != nil {
		return nil, err
	}
	st, err := driver.ParseStorageState(data)
	if err != nil {
		return nil, browserArgError(err, "give a file written by save_storage_state or Playwright's storageState")
	}
	tab := d.tab
	cs, err := role[driver.CookieStore](env, tab, "storage state")
	if err != nil {
		return nil, err
	}
	if err := cs.LoadStorageState(ctx, st); err != nil {
		return nil, browserArgError(err, "check the file's cookies")
	}
	return &Result{Data: stateSummary(in.Path, st)}, nil
}
