package driver

import (
	"slices"
	"strconv"
	"strings"
)

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

// SelectRequests returns the page of list's requests that q asks for,
// oldest first, and how many match in all; nav is the tab's current
// navigation and request finds an entry's request.
func SelectRequests[E any](q *RequestQuery, nav int, list []E, request func(E) *Request) (page []Request, total int) {
	for _, e := range list {
		r := request(e)
		if !q.matches(r, nav) {
			continue
		}
		total++
		if total > q.Offset && (q.Limit == 0 || len(page) < q.Limit) {
			page = append(page, *r)
		}
	}
	return page, total
}

func (q *RequestQuery) matches(r *Request, nav int) bool {
	switch {
	case !q.Preserved && r.Nav != nav:
		return false
	case len(q.Types) > 0 && !slices.Contains(q.Types, r.Type):
		return false
	case q.URL != "" && !strings.Contains(r.URL, q.URL):
		return false
	case len(q.Status) > 0 && !slices.Contains(q.Status, StatusClass(*r)):
		return false
	}
	return true
}
