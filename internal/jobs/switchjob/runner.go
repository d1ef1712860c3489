// Package switchjob runs the embedder switch job: it re-embeds every
// stored chunk and picture into a new collection while the old one stays
// live, reconciles what changed meanwhile, cuts over and drops the old
// collection, or undoes a cancelled switch (docs/OPERATIONS.md). The
// switch record and its transitions are package live's; the request that
// starts a switch is package library's.
package switchjob

import (
	"log/slog"

	"ragd/internal/catalog/registry"
	"ragd/internal/catalog/versions"
	"ragd/internal/jobs"
	"ragd/internal/store/live"
)

// Runner runs switch jobs.
type Runner struct {
	Live     *live.Holder
	Queue    *jobs.Queue
	Registry *registry.Registry
	// Versions takes each document's lock while it is reconciled, and
	// invalidates the cache after the cutover.
	Versions *versions.Keeper
	// Concurrency is how many batches are re-embedded at once.
	Concurrency int
	Log         *slog.Logger
}
