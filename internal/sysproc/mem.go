package sysproc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RSS returns the resident set size of pid (VmRSS) in bytes.
func RSS(pid int) (int64, error) {
	return procField(filepath.Join("/proc", strconv.Itoa(pid), "status"), "VmRSS:")
}

// PSS returns the proportional set size of pid in bytes: its private pages
// plus its share of pages shared with other processes, so that a sum over
// a process tree counts shared libraries and shared memory once.
func PSS(pid int) (int64, error) {
	return procField(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"), "Pss:")
}

// procField reads a "Name:   1234 kB" line from a /proc file, in bytes.
func procField(path, name string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name)
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("%s: malformed %s line %q", path, name, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no %s line", path, name)
}

// MatchingRSS returns how many live processes have substr on their command
// line and the sum of their RSS in bytes, which counts pages they share
// once per process. A process that exits mid-scan is left out.
func MatchingRSS(substr string) (procs int, rss int64) {
	for _, pid := range Matching(substr) {
		if r, err := RSS(pid); err == nil {
			procs++
			rss += r
		}
	}
	return procs, rss
}
