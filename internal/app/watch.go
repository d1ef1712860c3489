package app

import (
	"context"
	"fmt"
	"os"
	"sync"

	"ragd"

	"ragd/internal/jobs/watch"
	"ragd/internal/platform/config"
	"ragd/internal/platform/keyspace"
)

// Watch starts a watcher for each entry, each keeping its directory in
// sync until ctx ends; the returned func waits for them to stop. An entry
// whose path is not a directory inside the ingest roots, or whose kb_name
// is not a namespace, is an error naming it, and nothing starts.
func (a *App) Watch(ctx context.Context, entries []config.WatchEntry) (func(), error) {
	var watchers []*watch.Watcher
	for i, e := range entries {
		w, err := a.watcher(e)
		if err != nil {
			return nil, fmt.Errorf("watch[%d] %q: %w", i, e.Path, err)
		}
		watchers = append(watchers, w)
	}
	var wg sync.WaitGroup
	for _, w := range watchers {
		wg.Go(func() { w.Run(ctx) })
	}
	return wg.Wait, nil
}

func (a *App) watcher(e config.WatchEntry) (*watch.Watcher, error) {
	dir, err := a.Library.Roots.Resolve(e.Path)
	if err != nil {
		return nil, err
	}
	recursive := e.Recursive == nil || *e.Recursive
	prune := e.Prune == nil || *e.Prune
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if _, err := ragd.ResolveNamespace(e.KBName); err != nil {
		return nil, err
	}
	return watch.New(watch.Entry{Path: dir, KBName: e.KBName, Recursive: recursive, Prune: prune},
		a.Library, a.KV, keyspace.New(a.Config.Redis.KeyPrefix), watch.Timing{}, a.Log), nil
}
