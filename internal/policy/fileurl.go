package policy

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// The file: scheme reads the machine's disk, so it is refused unless the
// operator names directories with --allow-file-urls; then a file: URL is
// allowed only when the file it names, with "..", percent-escapes and
// symlinks resolved, lies inside one of them.

// fileHint is what a refused file: URL tells the agent.
const fileHint = "start cdpkit with --allow-file-urls DIR to let pages open files under DIR"

// isFileURL reports whether raw, read as a browser reads it, has the file
// scheme.
func isFileURL(raw string) bool {
	scheme, _, ok := strings.Cut(normalizeURL(raw), ":")
	return ok && strings.EqualFold(scheme, "file")
}

// normalizeURL drops surrounding spaces and control characters, and tabs
// and newlines inside, as a browser's URL parser does.
func normalizeURL(raw string) string {
	s := strings.TrimFunc(raw, func(r rune) bool { return r <= ' ' })
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}

// checkFile allows a file: URL whose file lies inside one of p.FileDirs.
func (p *Policy) checkFile(raw string) error {
	if len(p.FileDirs) == 0 {
		return blocked(raw, `scheme "file" is not allowed (no --allow-file-urls directory)`, fileHint)
	}
	path, err := filePath(normalizeURL(raw))
	if err != nil {
		return blocked(raw, err.Error(), "give a file:///absolute/path URL")
	}
	outside := blocked(raw, "file "+path+" is outside the --allow-file-urls directories ("+strings.Join(p.FileDirs, ", ")+")",
		"open a file under one of them, or start cdpkit with --allow-file-urls for its directory")
	// Judge the file as the browser will open it: through its symlinks.
	// A file that does not exist yet is judged by its directory's.
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		dir, derr := filepath.EvalSymlinks(filepath.Dir(path))
		if derr != nil {
			return outside
		}
		real = filepath.Join(dir, filepath.Base(path))
	}
	if !UploadRoots(p.FileDirs).containOrIs(real) {
		return outside
	}
	return nil
}

// filePath returns the local path a file: URL names, cleaned of "." and
// "..". Only local files are allowed (no host but localhost), and escaped
// separators are refused rather than guessed at.
func filePath(s string) (string, error) {
	s = strings.ReplaceAll(s, `\`, "/")
	if low := strings.ToLower(s); strings.Contains(low, "%2f") || strings.Contains(low, "%5c") || strings.Contains(low, "%00") {
		return "", fmt.Errorf("escaped separator in the file URL")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("bad file URL: %v", err)
	}
	if u.Host != "" && !strings.EqualFold(u.Host, "localhost") {
		return "", fmt.Errorf("file URL names host %q; only local files are allowed", u.Host)
	}
	p := u.Path
	if p == "" {
		p = u.Opaque // file:/x parses as opaque on some inputs
	}
	if runtime.GOOS == "windows" && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // /C:/dir → C:/dir
	}
	p = filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("file URL path %q is not absolute", u.Path)
	}
	return p, nil
}
