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
	path := filepath.Join("/proc", strconv.Itoa(pid), "status")
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: VmRSS: %w", path, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no VmRSS line", path)
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
