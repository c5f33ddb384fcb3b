package lighthouse

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
)

// passScore is the score at which Lighthouse shows an audit as passed.
const passScore = 0.9

// Summary is what a report says, in brief.
type Summary struct {
	Version  string          `json:"lighthouseVersion"`
	URL      string          `json:"url"`    // the page audited, after redirects
	Scores   map[string]*int `json:"scores"` // category id → 0–100; nil when the category could not be scored
	Failing  []Failing       `json:"failing"`
	Warnings []string        `json:"warnings,omitempty"`
	// RuntimeError is Lighthouse's own error for the run (the page did
	// not load, say), when it had one.
	RuntimeError string `json:"runtimeError,omitempty"`
}

// Failing is an audit that did not pass, with what fixing it would save.
type Failing struct {
	ID           string  `json:"id"`
	Title        string  `json:"title"`
	Score        float64 `json:"score"` // 0–1
	SavingsMs    float64 `json:"savingsMs,omitempty"`
	SavingsBytes float64 `json:"savingsBytes,omitempty"`
	Display      string  `json:"displayValue,omitempty"`
}

// lhr is the part of Lighthouse's JSON report (its "LHR") read here.
type lhr struct {
	LighthouseVersion string   `json:"lighthouseVersion"`
	FinalDisplayedURL string   `json:"finalDisplayedUrl"`
	RunWarnings       []string `json:"runWarnings"`
	RuntimeError      *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"runtimeError"`
	Categories map[string]struct {
		Score *float64 `json:"score"`
	} `json:"categories"`
	Audits map[string]struct {
		ID               string   `json:"id"`
		Title            string   `json:"title"`
		Score            *float64 `json:"score"`
		ScoreDisplayMode string   `json:"scoreDisplayMode"`
		DisplayValue     string   `json:"displayValue"`
		Details          struct {
			OverallSavingsMs    float64 `json:"overallSavingsMs"`
			OverallSavingsBytes float64 `json:"overallSavingsBytes"`
		} `json:"details"`
	} `json:"audits"`
}

// Summarize reads a Lighthouse JSON report and returns its category
// scores and its failing audits, heaviest first (by time saved, then bytes
// saved, then score), at most top of them.
func Summarize(r io.Reader, top int) (*Summary, error) {
	var rep lhr
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("lighthouse: reading the report: %w", err)
	}
	s := &Summary{Version: rep.LighthouseVersion, URL: rep.FinalDisplayedURL, Scores: map[string]*int{}, Warnings: rep.RunWarnings}
	if rep.RuntimeError != nil && rep.RuntimeError.Code != "" && rep.RuntimeError.Code != "NO_ERROR" {
		s.RuntimeError = rep.RuntimeError.Code + ": " + rep.RuntimeError.Message
	}
	for id, c := range rep.Categories {
		if c.Score != nil {
			v := int(math.Round(*c.Score * 100))
			s.Scores[id] = &v
		} else {
			s.Scores[id] = nil
		}
	}
	for id, a := range rep.Audits {
		switch a.ScoreDisplayMode {
		case "binary", "numeric", "metricSavings":
		default:
			continue // informative, manual, not applicable, or errored
		}
		if a.Score == nil || *a.Score >= passScore {
			continue
		}
		s.Failing = append(s.Failing, Failing{ID: cmp.Or(a.ID, id), Title: a.Title, Score: *a.Score,
			SavingsMs: math.Round(a.Details.OverallSavingsMs), SavingsBytes: math.Round(a.Details.OverallSavingsBytes), Display: a.DisplayValue})
	}
	slices.SortFunc(s.Failing, func(a, b Failing) int {
		return cmp.Or(cmp.Compare(b.SavingsMs, a.SavingsMs), cmp.Compare(b.SavingsBytes, a.SavingsBytes),
			cmp.Compare(a.Score, b.Score), cmp.Compare(a.ID, b.ID))
	})
	if len(s.Failing) > top {
		s.Failing = s.Failing[:top]
	}
	return s, nil
}
