package main

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// latency is a sorted sample of durations.
type latency []time.Duration

// p returns the nearest-rank pct-th percentile.
func (l latency) p(pct int) time.Duration {
	if len(l) == 0 {
		return 0
	}
	i := (len(l)*pct+99)/100 - 1
	return l[max(i, 0)]
}

// op is one timed call; i counts calls of that op from 0, warm-ups included.
type op func(ctx context.Context, i int) error

// measure runs each op warmup times, then n times timing each call, and
// returns each op's n timings, sorted. The ops take turns, the first one
// moving along each round, so that a comparison between them is skewed
// neither by the machine's load drifting during the run nor by always
// running right after the same neighbour. The first error stops it.
func measure(ctx context.Context, warmup, n int, ops ...op) ([]latency, error) {
	took := make([]latency, len(ops))
	for k := range ops {
		took[k] = make(latency, 0, n)
	}
	for i := range warmup + n {
		for j := range ops {
			k := (i + j) % len(ops)
			f := ops[k]
			start := time.Now()
			if err := f(ctx, i); err != nil {
				if i < warmup {
					return nil, fmt.Errorf("warm-up call %d: %w", i+1, err)
				}
				return nil, fmt.Errorf("call %d: %w", i-warmup+1, err)
			}
			if i >= warmup {
				took[k] = append(took[k], time.Since(start))
			}
		}
	}
	for _, l := range took {
		slices.Sort(l)
	}
	return took, nil
}
