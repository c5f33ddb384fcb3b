package poll

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

func TestUntil(t *testing.T) {
	tests := []struct {
		name      string
		o         Options
		doneAfter int // tries until try reports true; 0: never
		wantErr   error
		wantTries int
		wantTook  time.Duration
	}{
		{name: "at once", o: Options{Interval: 20 * time.Millisecond}, doneAfter: 1, wantTries: 1, wantTook: 0},
		{name: "third try", o: Options{Interval: 20 * time.Millisecond}, doneAfter: 3, wantTries: 3, wantTook: 40 * time.Millisecond},
		{name: "within passes", o: Options{Interval: 20 * time.Millisecond, Within: 50 * time.Millisecond},
			wantErr: context.DeadlineExceeded, wantTries: 3, wantTook: 50 * time.Millisecond},
		{name: "backoff doubles to max", o: Options{Interval: 100 * time.Millisecond, Max: 300 * time.Millisecond}, doneAfter: 5,
			wantTries: 5, wantTook: (100 + 200 + 300 + 300) * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				tries := 0
				err := Until(t.Context(), tt.o, func(context.Context) bool {
					tries++
					return tries == tt.doneAfter
				})
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
					t.Errorf("error %v, want %v", err, tt.wantErr)
				}
				if tries != tt.wantTries {
					t.Errorf("%d tries, want %d", tries, tt.wantTries)
				}
				if took := time.Since(start); took != tt.wantTook {
					t.Errorf("took %v of fake time, want %v", took, tt.wantTook)
				}
			})
		})
	}
}

func TestUntilContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		tries := 0
		err := Until(ctx, Options{Interval: time.Second}, func(ctx context.Context) bool {
			tries++
			if tries == 2 {
				cancel()
			}
			return false
		})
		if !errors.Is(err, context.Canceled) || tries != 2 {
			t.Errorf("error %v after %d tries, want context.Canceled after 2", err, tries)
		}
	})
}

func TestUntilBoundsTry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		err := Until(t.Context(), Options{Interval: time.Millisecond, Within: time.Second}, func(ctx context.Context) bool {
			<-ctx.Done() // a try that blocks is cut off by Within
			return false
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error %v, want context.DeadlineExceeded", err)
		}
	})
}

func TestUntilTriesOnceWhenDone(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	tries := 0
	err := Until(ctx, Options{Interval: time.Second}, func(context.Context) bool { tries++; return false })
	if !errors.Is(err, context.Canceled) || tries != 1 {
		t.Errorf("error %v after %d tries, want context.Canceled after 1", err, tries)
	}
}
