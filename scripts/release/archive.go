package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// platform is one release target, named as Go names it.
type platform struct{ GOOS, GOARCH string }

// platforms are the release targets: the Makefile's PLATFORMS and
// .goreleaser.yaml's goos × goarch (TestPlatformsAgree keeps them equal).
var platforms = []platform{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// exe is the binary's file name on p.
func (p platform) exe() string {
	if p.GOOS == "windows" {
		return "cdpkit.exe"
	}
	return "cdpkit"
}

// archiveName is the name of p's release archive: GoReleaser's default
// scheme, with the version's leading "v" dropped as GoReleaser drops it.
func (p platform) archiveName(version string) string {
	ext := ".tar.gz"
	if p.GOOS == "windows" {
		ext = ".zip"
	}
	return "cdpkit_" + strings.TrimPrefix(version, "v") + "_" + p.GOOS + "_" + p.GOARCH + ext
}

// release writes archives and their checksums into dist.
type release struct {
	version string
	dist    string
	// readme is the path of README.md, the one file besides the binary that
	// every archive holds.
	readme string
	// mtime is every archived file's modification time, so that the same
	// commit gives byte-identical archives.
	mtime time.Time
}

// writeArchive archives the binary at bin with the README for p into
// r.dist and returns the archive's name.
func (r release) writeArchive(p platform, bin string) (string, error) {
	binData, err := os.ReadFile(bin)
	if err != nil {
		return "", fmt.Errorf("archive %s/%s: %w (make release builds it)", p.GOOS, p.GOARCH, err)
	}
	readme, err := os.ReadFile(r.readme)
	if err != nil {
		return "", fmt.Errorf("archive %s/%s: %w", p.GOOS, p.GOARCH, err)
	}
	files := []archivedFile{
		{name: p.exe(), mode: 0o755, data: binData},
		{name: "README.md", mode: 0o644, data: readme},
	}
	var buf bytes.Buffer
	if p.GOOS == "windows" {
		err = writeZip(&buf, files, r.mtime)
	} else {
		err = writeTarGz(&buf, files, r.mtime)
	}
	if err != nil {
		return "", fmt.Errorf("archive %s/%s: %w", p.GOOS, p.GOARCH, err)
	}
	name := p.archiveName(r.version)
	if err := os.WriteFile(filepath.Join(r.dist, name), buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("archive %s/%s: %w", p.GOOS, p.GOARCH, err)
	}
	return name, nil
}

// writeSums writes SHA256SUMS over every archive of r.version in r.dist, in
// the format `sha256sum -c` and GoReleaser use: "<hex>  <name>", by name.
func (r release) writeSums() error {
	var names []string
	for _, p := range platforms {
		names = append(names, p.archiveName(r.version))
	}
	slices.Sort(names)
	var sums strings.Builder
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(r.dist, name))
		if err != nil {
			return fmt.Errorf("checksums: %w", err)
		}
		fmt.Fprintf(&sums, "%x  %s\n", sha256.Sum256(data), name)
	}
	return os.WriteFile(filepath.Join(r.dist, "SHA256SUMS"), []byte(sums.String()), 0o644)
}

// archivedFile is one file of an archive, at its root.
type archivedFile struct {
	name string
	mode fs.FileMode
	data []byte
}

// writeTarGz writes files as a gzipped tar with no owner and a fixed time.
func writeTarGz(w io.Writer, files []archivedFile, mtime time.Time) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		hdr := &tar.Header{
			Typeflag: tar.TypeReg,
			Name:     f.name,
			Mode:     int64(f.mode),
			Size:     int64(len(f.data)),
			ModTime:  mtime,
			Format:   tar.FormatPAX,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// writeZip writes files as a zip whose entries carry Unix modes, so that a
// Windows binary unzipped on another OS (say, to test it) stays executable.
func writeZip(w io.Writer, files []archivedFile, mtime time.Time) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		hdr := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(f.mode)
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// errNotInArchive means an archive lacks the file asked for.
var errNotInArchive = errors.New("release: file not in archive")

// readFromArchive returns the contents of the file called name at the root
// of the .tar.gz or .zip at path.
func readFromArchive(path, name string) ([]byte, error) {
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		f, err := zr.Open(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s in %s: %w", name, path, errNotInArchive)
			}
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(f)
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	gz, err := gzip.NewReader(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s in %s: %w", name, path, errNotInArchive)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if hdr.Name == name && hdr.Typeflag == tar.TypeReg {
			return io.ReadAll(tr)
		}
	}
}
