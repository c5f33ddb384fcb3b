package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cdpkit/cdpkit/internal/policy"
)

// The CLI's one rule for files: a path given to a verb on the command
// line (screenshot x.png, record stop x.mp4) is relative to the current
// directory, as with any shell command, and the file is put there; a verb
// given no path leaves the file in the artifact dir and prints where. A
// tool's own arguments (--filePath, --savePath) name files in the artifact
// dir, as the tool's schema says.

// localSave reports whether arg of verb is a path the CLI writes to in
// the current directory, rather than an argument sent to the daemon.
func localSave(verb, arg string) bool {
	switch {
	case verb == "screenshot" && arg == "path", verb == "record stop" && arg == "savePath":
		return true
	}
	return false
}

// moveSaved moves the file the daemon saved in the artifact dir (the
// result's path) to path, relative to the current directory, and makes
// the result name it. The file is renamed into place, or copied to a new
// temporary file next to path and renamed when the two are on different
// file systems: a symlink or FIFO planted at path is replaced, never
// written through.
func (o *output) moveSaved(path string) error {
	var d struct {
		Path string `json:"path"`
	}
	json.Unmarshal(o.data, &d)
	if d.Path == "" {
		return errors.New("the daemon saved no file to move")
	}
	dst, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := os.Rename(d.Path, dst); err != nil {
		// Another file system (or volume): copy.
		if err := copyInto(d.Path, dst); err != nil {
			return fmt.Errorf("saving %s: %w", path, err)
		}
		os.Remove(d.Path)
	}
	from, _ := json.Marshal(d.Path)
	to, _ := json.Marshal(dst)
	o.data = bytes.Replace(o.data, from, to, 1)
	o.render = strings.Replace(o.render, d.Path, dst, 1)
	o.savedTo = dst
	return nil
}

// copyInto copies src to a new file next to dst, then renames it over dst.
func copyInto(src, dst string) error {
	in, err := policy.OpenRegular(src) // never blocks on a FIFO planted in its place
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	if _, err := io.Copy(tmp, in); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}
