// Package sourcesvc answers the requests about sources (Git repositories,
// websites, S3 buckets, server directories kept in sync) without their
// transport: adding, listing, changing and deleting them with their rules
// and rights, starting their syncs on request — the config's watch:
// entries included, as read-only directory sources — and on their
// schedule (Scheduler, one replica under a lease). It enqueues sync jobs
// and runs none: the worker does.
package sourcesvc

import (
	"context"
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/catalog/sources"
	"ragd/internal/catalog/versions"
	"ragd/internal/ingest/guard"
	"ragd/internal/jobs"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/library"
	"ragd/internal/platform/config"
	"ragd/wire"
)

// The sources' requests and answers (package wire).
type (
	SourceRequest     = wire.SourceRequest
	SourcePatch       = wire.SourcePatch
	SourceList        = wire.SourceList
	SyncSourceRequest = wire.SyncSourceRequest
	SourceDeleted     = wire.SourceDeleted
	// SourcePlan is a sync's dry run.
	SourcePlan = sourcesync.Plan
)

// Sources answers the requests about sources: adding, listing, changing
// and deleting them, and starting their syncs — on request or on their
// schedule (schedule.go). The sync itself is a worker's job.
type Sources struct {
	Store *sources.Store
	// Kinds sync the kinds of source this ragd has; Roots confine the
	// local paths a source may read.
	Kinds    sourcesync.Kinds
	Roots    *guard.Roots
	Queue    *jobs.Queue
	Versions *versions.Keeper
	// MinEvery is the shortest schedule a source may have
	// (sources.min_every); Jitter the most a scheduled sync is moved by
	// (sources.schedule_jitter).
	MinEvery time.Duration
	Jitter   time.Duration
	// Watch are the config's watch: entries, listed as read-only
	// directory sources (sources_watch.go) whose syncs Directories runs.
	Watch       []config.WatchEntry
	Directories *library.Service
}

// Create validates and records a source.
func (s *Sources) Create(ctx context.Context, req SourceRequest) (ragd.Source, error) {
	ns, err := authn.Namespace(ctx, req.KBName)
	if err != nil {
		return ragd.Source{}, err
	}
	if err := s.checkKind(req.Kind); err != nil {
		return ragd.Source{}, err
	}
	src := ragd.Source{ID: sources.NewID(), Namespace: ns, Kind: req.Kind, URL: strings.TrimSpace(req.URL), Ref: req.Ref,
		Include: req.Include, Exclude: req.Exclude, Every: req.Every, SSHKey: req.SSHKey, Tags: req.Tags,
		Endpoint: strings.TrimSpace(req.Endpoint), Region: req.Region, AccessKey: req.AccessKey, SecretKey: req.SecretKey,
		MaxPages: req.MaxPages, MaxDepth: req.MaxDepth,
		Viewer: library.ViewerOf(ctx), CreatedAt: time.Now().UTC()}
	access, err := library.AccessParam(req.Access)
	if err != nil {
		return ragd.Source{}, err
	}
	if access != nil {
		src.Access = *access
	}
	if err := s.check(ctx, src); err != nil {
		return ragd.Source{}, err
	}
	src.NextSync = s.next(src, time.Now())
	if err := s.Store.Create(ctx, src); err != nil {
		return ragd.Source{}, err
	}
	return src, nil
}

// checkKind refuses a kind this ragd does not sync, naming those it does.
func (s *Sources) checkKind(k ragd.SourceKind) error {
	if _, ok := s.Kinds[k]; ok {
		return nil
	}
	built := slices.Sorted(maps.Keys(s.Kinds))
	switch k {
	case "":
		return ragd.Invalid("kind", "missing", "kind is required: one of %s", built)
	case ragd.SourceWeb, ragd.SourceS3, ragd.SourceGit, ragd.SourceDirectory:
		return ragd.Invalid("kind", "value_error", "kind %s is not built yet: this ragd syncs %s", k, built)
	}
	return ragd.Invalid("kind", "value_error", "unknown kind %q: this ragd syncs %s", k, built)
}

// check validates what a source says, whether new or changed: its kind's
// rules, then the rules every source has. A source reading a local path
// reads only inside the asker's own roots, when its key has some.
func (s *Sources) check(ctx context.Context, src ragd.Source) error {
	kind, err := s.Kinds.For(src.Kind)
	if err != nil {
		return err
	}
	if err := kind.Check(ctx, src); err != nil {
		return library.Relabel(err, "file_path", "url")
	}
	if p := kind.LocalPath(src); p != "" {
		if _, err := library.ResolveFor(ctx, s.Roots, p); err != nil {
			return library.Relabel(err, "file_path", "url")
		}
	}
	if err := ragd.ValidTags(src.Tags); err != nil {
		return err
	}
	_, err = s.every(src.Every)
	return err
}

// every parses a schedule; 0 for none.
func (s *Sources) every(v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, ragd.Invalid("every", "value_error", "every must be a duration such as 30m or 1h: %v", err)
	}
	if d < s.MinEvery {
		return 0, ragd.Invalid("every", "value_error", "every %s is shorter than sources.min_every (%s)", v, s.MinEvery)
	}
	return d, nil
}

// next is when a scheduled source syncs after now, nil without a
// schedule: every from now, moved by up to Jitter so sources added
// together do not sync together.
func (s *Sources) next(src ragd.Source, now time.Time) *time.Time {
	d, err := s.every(src.Every)
	if err != nil || d == 0 {
		return nil
	}
	if s.Jitter > 0 {
		d += time.Duration(rand.Int64N(int64(s.Jitter)))
	}
	t := now.Add(d).UTC().Truncate(time.Second)
	return &t
}

// Get returns a source the caller may see: one of a namespace it may use.
func (s *Sources) Get(ctx context.Context, id string) (ragd.Source, error) {
	if e, ok := s.watched(id); ok {
		src, ok := watchSource(e)
		if !ok || authn.CheckNamespace(ctx, src.Namespace) != nil {
			return ragd.Source{}, ragd.NotFound("source %q not found", id)
		}
		return src, nil
	}
	src, err := s.Store.Get(ctx, id)
	if err != nil {
		return src, err
	}
	if authn.CheckNamespace(ctx, src.Namespace) != nil {
		return ragd.Source{}, ragd.NotFound("source %q not found", id) // not the caller's: do not confirm it exists
	}
	s.withJob(ctx, &src)
	return src, nil
}

// withJob fills in the last sync's outcome from its job.
func (s *Sources) withJob(ctx context.Context, src *ragd.Source) {
	if src.LastSync == nil || src.LastSync.JobID == "" {
		return
	}
	j, err := s.Queue.Job(ctx, src.LastSync.JobID)
	if err != nil {
		return // expired or unreadable: the recorded outcome stands
	}
	src.LastSync.Outcome = string(j.Status)
	if j.Error != "" {
		src.LastSync.Error = j.Error
	}
	var res ragd.DirectoryResult
	if j.Result != nil && json.Unmarshal(j.Result, &res) == nil {
		src.LastSync.Failed = res.FilesFailed + res.FilesUnread
	}
}

// List returns the sources of the namespaces the caller may use, or of
// namespace kb alone when kb is set.
func (s *Sources) List(ctx context.Context, kb string) (SourceList, error) {
	if kb != "" {
		ns, err := authn.Namespace(ctx, kb)
		if err != nil {
			return SourceList{}, err
		}
		kb = ns
	}
	all, err := s.Store.List(ctx)
	if err != nil {
		return SourceList{}, err
	}
	out := SourceList{Sources: []ragd.Source{}}
	p := authn.FromContext(ctx)
	for _, src := range all {
		if p.Allows(src.Namespace) && (kb == "" || src.Namespace == kb) {
			s.withJob(ctx, &src)
			out.Sources = append(out.Sources, src)
		}
	}
	out.Sources = append(out.Sources, s.watchSources(ctx, kb)...)
	return out, nil
}
