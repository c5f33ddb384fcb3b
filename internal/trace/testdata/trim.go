//go:build ignore

// Trim cuts a trace recorded from the fixtures (go test ./internal/tools
// -run TestPerformanceTrace -record-traces DIR) down to a test-sized file:
// the traced page's main thread, less CPU samples and short events, plus
// the events that say which page and thread that is.
//
//	go run trim.go < DIR/busy.json > busy.json
package main

import (
	"encoding/json"
	"fmt"
	"os"
)

type event struct {
	Name string          `json:"name"`
	Ph   string          `json:"ph"`
	Dur  float64         `json:"dur"`
	Pid  int64           `json:"pid"`
	Tid  int64           `json:"tid"`
	Args json.RawMessage `json:"args"`
}

func main() {
	var in struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	evs := make([]event, len(in.TraceEvents))
	var pid, tid int64
	for i, raw := range in.TraceEvents {
		json.Unmarshal(raw, &evs[i])
		e := evs[i]
		if e.Name == "navigationStart" && json.Valid(e.Args) {
			var a struct {
				Data struct {
					URL string `json:"documentLoaderURL"`
				} `json:"data"`
			}
			json.Unmarshal(e.Args, &a)
			if len(a.Data.URL) > 4 && a.Data.URL[:4] == "http" {
				pid, tid = e.Pid, e.Tid
			}
		}
	}
	fmt.Println(`{"traceEvents":[`)
	first := true
	for i, e := range evs {
		keep := e.Name == "TracingStartedInBrowser" ||
			(e.Ph == "M" && e.Pid == pid) ||
			(e.Pid == pid && e.Tid == tid && e.Name != "ProfileChunk" && e.Name != "Profile" &&
				e.Ph != "s" && e.Ph != "f" && !(e.Ph == "X" && e.Dur < 300))
		if !keep {
			continue
		}
		if !first {
			fmt.Println(",")
		}
		first = false
		os.Stdout.Write(in.TraceEvents[i])
	}
	fmt.Println("\n]}")
}
