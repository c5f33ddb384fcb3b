// Command release packs the cdpkit binaries that `make release` built into
// the archives a release publishes, and those archives into the npm packages
// `make npm` packs. It uses only the standard library, so a release needs Make
// and Go and no tar, zip or sha256sum of a particular flavour.
//
//	go run ./scripts/release archives -version v1.2.3 -dist dist
//	go run ./scripts/release npm -version v1.2.3 -dist dist
//
// archives reads dist/build/<os>_<arch>/cdpkit[.exe] for every platform and
// writes dist/cdpkit_<version>_<os>_<arch>.tar.gz (.zip for Windows), each
// holding the binary and README.md, plus dist/SHA256SUMS. The names are the
// ones .goreleaser.yaml gives, so npm also packs what GoReleaser publishes.
//
// npm reads those archives and writes dist/npm/: the launcher package cdpkit
// and one package @cdpkit/<os>-<cpu> per platform holding its binary
// (docs/decisions/2026-12-03-npm-packages.md). `npm pack` is left to make.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "release: %v\n", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "archives" && args[0] != "npm") {
		return fmt.Errorf("usage: release archives|npm -version V [-dist DIR] [-mtime UNIX] [-readme FILE] [-src DIR]")
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", "", "the version, as `git describe` gives it (v1.2.3, or a commit)")
	dist := fs.String("dist", "dist", "the release directory")
	mtime := fs.String("mtime", "0", "modification time of archived files, in Unix seconds (the commit's, for reproducible archives)")
	src := fs.String("src", "npm", "the directory holding the launcher package's files")
	readme := fs.String("readme", "README.md", "the README every archive holds")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *version == "" {
		return fmt.Errorf("%s: -version is required", args[0])
	}
	secs, err := strconv.ParseInt(*mtime, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: -mtime %q: %w", args[0], *mtime, err)
	}
	switch args[0] {
	case "archives":
		rel := release{version: *version, dist: *dist, readme: *readme, mtime: time.Unix(secs, 0).UTC()}
		for _, p := range platforms {
			name, err := rel.writeArchive(p, filepath.Join(*dist, "build", p.GOOS+"_"+p.GOARCH, p.exe()))
			if err != nil {
				return err
			}
			fmt.Fprintln(stderr, "wrote", filepath.Join(*dist, name))
		}
		return rel.writeSums()
	default:
		out := filepath.Join(*dist, "npm")
		if err := os.RemoveAll(out); err != nil {
			return err
		}
		pkgs := npmPackages{version: *version, out: out}
		if err := pkgs.writeLauncher(*src, platforms); err != nil {
			return err
		}
		for _, p := range platforms {
			archive := filepath.Join(*dist, p.archiveName(*version))
			if err := pkgs.writePlatform(p, archive); err != nil {
				return err
			}
		}
		fmt.Fprintln(stderr, "wrote", out)
		return nil
	}
}
