package app

import (
	"context"
	"sync"

	"ragd/internal/catalog/lease"
	"ragd/internal/library/sourcesvc"
	"ragd/internal/platform/keyspace"
)

// Schedule runs the sources' scheduler until ctx ends (one replica at a
// time starts the scheduled syncs: sourcesvc.Scheduler); the returned func
// waits for it to stop.
func (a *App) Schedule(ctx context.Context) func() {
	cfg := a.Config.Sources
	sc := &sourcesvc.Scheduler{Sources: a.Sources, Tick: cfg.ScheduleTick, Log: a.Log,
		Lease: lease.New(a.KV.Client(), keyspace.New(a.Config.Redis.KeyPrefix).SourceScheduler(), 3*cfg.ScheduleTick)}
	var wg sync.WaitGroup
	wg.Go(func() { sc.Run(ctx) })
	return wg.Wait
}
