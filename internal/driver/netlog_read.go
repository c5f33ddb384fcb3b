package driver

import "strconv"

// RequestQuery selects requests of the log.
type RequestQuery struct {
	Types     []string // only these resource types; all when empty
	URL       string   // only URLs containing this
	Status    []string // only these classes: 1xx … 5xx, "failed", "pending"
	Preserved bool     // include the navigations before the current one
	Offset    int      // skip this many matches, oldest first
	Limit     int      // return at most this many; 0 means all
}

// StatusClass is a request's class for filtering: "1xx" … "5xx",
// "failed", or "pending" while it has no answer.
func StatusClass(r Request) string {
	switch {
	case r.Failure != "":
		return "failed"
	case r.Status >= 100 && r.Status < 600:
		return strconv.Itoa(r.Status/100) + "xx"
	}
	return "pending"
}
