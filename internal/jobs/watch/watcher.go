// Package watch keeps indexed directories in sync with the filesystem:
// fsnotify reports changes, which, debounced, become directory sync jobs
// (the same plan and job as rag_index_directory with sync: true), and a
// full sync on start and after any watcher error or overflow catches up
// with what happened unseen. A Redis lease makes one process the watcher
// of each directory however many replicas are configured with it.
package watch

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"ragd"
	"ragd/internal/catalog/lease"
	"ragd/internal/ingest"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/wire"
)

// Entry is one watched directory.
type Entry struct {
	Path      string
	KBName    string
	Recursive bool
	Prune     bool
}

// Syncer runs directory syncs and reports their jobs (library.Service).
type Syncer interface {
	IndexDirectory(ctx context.Context, req wire.DirectoryRequest) (wire.Enqueued, error)
	Job(ctx context.Context, id string) (*ragd.Job, error)
}

// Timing of a watcher; zero fields take the defaults.
type Timing struct {
	// Debounce is the quiet time after the last event before a sync.
	Debounce time.Duration
	// LeaseTTL is how long a lease outlives its holder.
	LeaseTTL time.Duration
	// Poll is how often a running sync's job is checked.
	Poll time.Duration
}

func (t Timing) withDefaults() Timing {
	if t.Debounce <= 0 {
		t.Debounce = 500 * time.Millisecond
	}
	if t.LeaseTTL <= 0 {
		t.LeaseTTL = 15 * time.Second
	}
	if t.Poll <= 0 {
		t.Poll = 200 * time.Millisecond
	}
	return t
}

// Watcher keeps one entry in sync while it holds the entry's lease.
type Watcher struct {
	entry  Entry
	lib    Syncer
	lease  *lease.Lease
	timing Timing
	log    *slog.Logger
}

// New returns a watcher of e, leased in st under the key keys
// names for it. e.Path must be a directory inside the ingest roots (the
// sync jobs check again).
func New(e Entry, lib Syncer, st *kv.Store, keys keyspace.Keys, t Timing, log *slog.Logger) *Watcher {
	t = t.withDefaults()
	key := keys.WatchLease(e.KBName, e.Path)
	return &Watcher{entry: e, lib: lib, lease: lease.New(st.Client(), key, t.LeaseTTL), timing: t,
		log: log.With("watch", e.Path, "kb_name", e.KBName)}
}

// Run watches until ctx ends: it waits for the lease, watches while it
// holds it, and waits again if it loses it.
func (w *Watcher) Run(ctx context.Context) {
	for ctx.Err() == nil {
		ok, err := w.lease.Acquire(ctx)
		if err != nil {
			w.log.Warn("watch lease not acquired", "error", err)
		}
		if ok {
			w.log.Info("watching")
			w.hold(ctx)
			_ = w.lease.Release(context.Background())
			continue
		}
		sleep(ctx, w.timing.LeaseTTL/3)
	}
}

// hold watches while the lease is renewed; it returns when ctx ends or
// the lease is lost.
func (w *Watcher) hold(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer cancel()
		for sleep(ctx, w.timing.LeaseTTL/3) {
			if ok, err := w.lease.Renew(ctx); !ok && ctx.Err() == nil {
				w.log.Warn("watch lease lost; another process may watch now", "error", err)
				return
			}
		}
	}()
	for ctx.Err() == nil {
		if err := w.watch(ctx); err != nil && ctx.Err() == nil {
			w.log.Warn("watcher failed; watching again after a full sync", "error", err)
			sleep(ctx, time.Second)
		}
	}
}

// watch runs one fsnotify watcher: a full sync first (what changed while
// nobody watched), then a sync after each burst of events. It returns on
// an error or an overflow, after which hold starts over with a full sync.
func (w *Watcher) watch(ctx context.Context) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	if err := w.addTree(fw, w.entry.Path); err != nil {
		return err
	}
	s := &syncRun{w: w}
	s.request(ctx)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	tick := time.NewTicker(w.timing.Poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("watcher closed")
			}
			w.event(fw, ev)
			timer.Reset(w.timing.Debounce)
		case err, ok := <-fw.Errors:
			if !ok {
				return errors.New("watcher closed")
			}
			return err // fsnotify.ErrEventOverflow among them: events were lost
		case <-timer.C:
			s.request(ctx)
		case <-tick.C:
			s.poll(ctx)
		}
	}
}

// event adds the watches a new directory needs, and those a changed
// ignore file may now call for (a directory it stopped excluding).
func (w *Watcher) event(fw *fsnotify.Watcher, ev fsnotify.Event) {
	if !w.entry.Recursive {
		return
	}
	dir := ""
	switch {
	case ingest.IsIgnoreFile(filepath.Base(ev.Name)):
		dir = filepath.Dir(ev.Name)
	case ev.Has(fsnotify.Create):
		if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
			dir = ev.Name
		}
	}
	if dir == "" {
		return
	}
	if err := w.addTree(fw, dir); err != nil {
		w.log.Warn("new directory not watched", "dir", dir, "error", err)
	}
}

// addTree watches dir and, for a recursive entry, every directory below
// it that a sync walks: not hidden ones, node_modules, nor what an ignore
// file excludes (ingest.Skipper, which the sync's walk uses too). A
// directory an ignore file newly excludes stays watched until the watch
// starts over: its events only cost a sync that finds nothing to do.
func (w *Watcher) addTree(fw *fsnotify.Watcher, dir string) error {
	if !w.entry.Recursive {
		return fw.Add(dir)
	}
	skipper := ingest.NewSkipper(w.entry.Path, false)
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			if p == dir {
				return err
			}
			return nil
		case !d.IsDir():
			return nil
		}
		// An ignore file past its bounds fails the sync, which says why;
		// watching the directory meanwhile costs little.
		if skip, _ := skipper.Skip(p, true); skip {
			return filepath.SkipDir
		}
		return fw.Add(p)
	})
}

// sleep waits d or until ctx ends, and reports whether d passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
