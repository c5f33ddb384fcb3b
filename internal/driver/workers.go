package driver

import (
	"context"
)

// Worker is a worker target: a dedicated, shared or service worker.
type Worker struct {
	ID   string `json:"id"`
	Type string `json:"type"` // worker, shared_worker or service_worker
	URL  string `json:"url"`
}

// WorkerLister is a Driver that can list workers (list_pages all:true).
type WorkerLister interface {
	// Workers lists the workers s sees (every worker for a nil s), in the
	// order the browser announced them, after one refresh of the targets
	// (bounded by ctx).
	Workers(ctx context.Context, s *Scope) ([]Worker, error)
}
