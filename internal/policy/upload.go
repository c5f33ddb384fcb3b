package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// UploadRoots are the directories whose files a page may be given through
// a file input. Each is absolute or relative to the working directory; a
// root that does not exist holds nothing. The zero value allows nothing.
type UploadRoots []string

// Check resolves path (absolute, or relative to the working directory)
// with every symlink followed, and returns the resolved absolute path if
// it names a regular file inside one of the roots. Anything else — outside
// every root, escaping one through a symlink or "..", missing, not a
// regular file — is a *PathError wrapping ErrUnsafePath. A missing file is
// reported as missing only inside a root, so that Check cannot be used to
// probe for files elsewhere.
//
// Callers should hand the returned path, not the one given, to the
// browser: it is the file that was checked.
func (r UploadRoots) Check(path string) (string, error) {
	switch {
	case path == "":
		return "", &PathError{Path: path, Reason: "empty path"}
	case strings.ContainsRune(path, 0):
		return "", &PathError{Path: strings.ReplaceAll(path, "\x00", `\0`), Reason: "path contains a NUL byte"}
	case len(path) > maxPathLen:
		return "", &PathError{Path: path[:40] + "…", Reason: fmt.Sprintf("path longer than %d bytes", maxPathLen)}
	}
	outside := &PathError{Path: path, Reason: "outside the upload roots (" + r.String() + ")"}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", &PathError{Path: path, Reason: err.Error()}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// Say "missing" only when the file's directory resolves inside a
		// root.
		dir, derr := filepath.EvalSymlinks(filepath.Dir(abs))
		if derr != nil || !r.contain(filepath.Join(dir, filepath.Base(abs))) {
			return "", outside
		}
		if errors.Is(err, fs.ErrNotExist) {
			return "", &PathError{Path: path, Reason: "no such file"}
		}
		return "", &PathError{Path: path, Reason: "cannot be read"}
	}
	if !r.contain(real) {
		return "", outside
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", &PathError{Path: path, Reason: "cannot be read"}
	}
	if !fi.Mode().IsRegular() {
		return "", &PathError{Path: path, Reason: "not a regular file"}
	}
	return real, nil
}

// contain reports whether the absolute path p lies strictly inside a root,
// taken both as written and with its symlinks resolved.
func (r UploadRoots) contain(p string) bool {
	for _, root := range r {
		dir, err := filepath.Abs(root)
		if err != nil {
			continue
		}
		if within(dir, p) {
			return true
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil && within(real, p) {
			return true
		}
	}
	return false
}

// containOrIs is contain, also true when p is one of the roots itself
// (a file: URL may name an allowed directory, which shows its listing).
func (r UploadRoots) containOrIs(p string) bool {
	for _, root := range r {
		for _, dir := range []string{root, evalOrSelf(root)} {
			if d, err := filepath.Abs(dir); err == nil && d == p {
				return true
			}
		}
	}
	return r.contain(p)
}

func evalOrSelf(p string) string {
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

// within reports whether p lies strictly below dir; both are absolute.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// String lists the roots, comma-separated.
func (r UploadRoots) String() string {
	if len(r) == 0 {
		return "none"
	}
	return strings.Join(r, ", ")
}

// credentialNames are entries whose presence marks a directory as someone's
// home (or a store of secrets): a directory that holds one is never an
// implicit upload root.
var credentialNames = []string{".ssh", ".aws", ".config", ".gnupg", ".kube", ".docker", ".azure", ".gcloud",
	".netrc", ".git-credentials", ".password-store", ".pgpass", ".npmrc", ".pypirc", ".vault-token"}

// systemDirs are never an implicit upload root, nor is anything under the
// first four.
var systemDirs = []string{"/etc", "/proc", "/sys", "/dev", "/root", "/boot", "/var", "/usr", "/bin", "/sbin", "/lib", "/home", "/Users", "/private"}

// SafeUploadRoot returns nil if dir may serve as an implicit upload root
// (the directory a CLI call runs in), else why not: dir must be absolute,
// and not /, the home directory or a directory above it, a system
// directory, or a directory that holds credentials (.ssh, .aws, .config,
// .gnupg, .kube, .docker, .netrc, …), taken both as written and with its
// symlinks resolved. An explicit --upload-root is not subject to this.
func SafeUploadRoot(dir string) error {
	if dir == "" || !filepath.IsAbs(dir) {
		return fmt.Errorf("upload root %q is not an absolute path", dir)
	}
	paths := []string{filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != paths[0] {
		paths = append(paths, real)
	}
	home, _ := os.UserHomeDir()
	var homes []string
	if home != "" {
		homes = append(homes, filepath.Clean(home))
		if real, err := filepath.EvalSymlinks(home); err == nil {
			homes = append(homes, real)
		}
	}
	for _, p := range paths {
		if p == string(filepath.Separator) || filepath.Dir(p) == p {
			return fmt.Errorf("upload root %s is the file system root", dir)
		}
		for _, h := range homes {
			if p == h || within(p, h) {
				return fmt.Errorf("upload root %s is the home directory or holds it", dir)
			}
		}
		for i, s := range systemDirs {
			if p == s || (i < 4 && within(s, p)) {
				return fmt.Errorf("upload root %s is a system directory", dir)
			}
		}
		for _, n := range credentialNames {
			if slices.Contains(strings.Split(p, string(filepath.Separator)), n) {
				return fmt.Errorf("upload root %s is inside a %s directory", dir, n)
			}
			if _, err := os.Lstat(filepath.Join(p, n)); err == nil {
				return fmt.Errorf("upload root %s holds %s, so it looks like a home directory", dir, n)
			}
		}
	}
	return nil
}
