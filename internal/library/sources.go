package library

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/catalog/sources"
	"ragd/internal/catalog/versions"
	"ragd/internal/jobs"
	"ragd/internal/jobs/gitsync"
	"ragd/wire"
)

// The sources' requests and answers (package wire).
type (
	SourceRequest     = wire.SourceRequest
	SourcePatch       = wire.SourcePatch
	SourceList        = wire.SourceList
	SyncSourceRequest = wire.SyncSourceRequest
	SourceDeleted     = wire.SourceDeleted
	// SourcePlan is a git sync's dry run.
	SourcePlan = gitsync.Plan
)

// Sources answers the requests about sources: adding, listing, changing
// and deleting them, and starting their syncs — on request or on their
// schedule (schedule.go). The sync itself is a worker's job.
type Sources struct {
	Store    *sources.Store
	Git      *gitsync.Syncer
	Queue    *jobs.Queue
	Versions *versions.Keeper
	// MinEvery is the shortest schedule a source may have
	// (sources.min_every); Jitter the most a scheduled sync is moved by
	// (sources.schedule_jitter).
	MinEvery time.Duration
	Jitter   time.Duration
}

// Create validates and records a source.
func (s *Sources) Create(ctx context.Context, req SourceRequest) (ragd.Source, error) {
	ns, err := authn.Namespace(ctx, req.KBName)
	if err != nil {
		return ragd.Source{}, err
	}
	if err := checkKind(req.Kind); err != nil {
		return ragd.Source{}, err
	}
	src := ragd.Source{ID: sources.NewID(), Namespace: ns, Kind: req.Kind, URL: strings.TrimSpace(req.URL), Ref: req.Ref,
		Include: req.Include, Exclude: req.Exclude, Every: req.Every, SSHKey: req.SSHKey, Tags: req.Tags,
		Viewer: viewerOf(ctx), CreatedAt: time.Now().UTC()}
	access, err := accessParam(req.Access)
	if err != nil {
		return ragd.Source{}, err
	}
	if access != nil {
		src.Access = *access
	}
	if err := s.check(src); err != nil {
		return ragd.Source{}, err
	}
	if e, _ := s.Git.CheckURL(src.URL); e.Protocol == "file" {
		// A key limited to roots of its own may read only from those.
		if _, err := resolveFor(ctx, s.Git.Roots, e.Path); err != nil {
			return ragd.Source{}, err
		}
	}
	src.NextSync = s.next(src, time.Now())
	if err := s.Store.Create(ctx, src); err != nil {
		return ragd.Source{}, err
	}
	return src, nil
}

// checkKind refuses a kind this ragd does not sync, naming those it does.
func checkKind(k ragd.SourceKind) error {
	if slices.Contains(ragd.SourceKindsBuilt, k) {
		return nil
	}
	built := fmt.Sprint(ragd.SourceKindsBuilt)
	switch k {
	case "":
		return ragd.Invalid("kind", "missing", "kind is required: one of %s", built)
	case ragd.SourceWeb, ragd.SourceS3:
		return ragd.Invalid("kind", "value_error", "kind %s is not built yet: this ragd syncs %s", k, built)
	case ragd.SourceDirectory:
		return ragd.Invalid("kind", "value_error", "a directory is synced with POST /tools/rag_index_directory (sync: true) or watch:, not as a source yet: this ragd's sources are %s", built)
	}
	return ragd.Invalid("kind", "value_error", "unknown kind %q: this ragd syncs %s", k, built)
}

// check validates what a source says, whether new or changed.
func (s *Sources) check(src ragd.Source) error {
	if _, err := s.Git.CheckURL(src.URL); err != nil {
		return err
	}
	if strings.ContainsAny(src.Ref, " ~^:?*[\\\x00") || strings.HasPrefix(src.Ref, "-") || len(src.Ref) > 255 {
		return ragd.Invalid("ref", "value_error", "ref %q is not a branch or tag name", src.Ref)
	}
	if err := gitsync.CheckGlobs("include", src.Include); err != nil {
		return err
	}
	if err := gitsync.CheckGlobs("exclude", src.Exclude); err != nil {
		return err
	}
	if err := ragd.ValidTags(src.Tags); err != nil {
		return err
	}
	if src.SSHKey != "" && !strings.HasPrefix(src.SSHKey, ragd.SecretPrefix) {
		return ragd.Invalid("ssh_key", "value_error", "ssh_key must be env:VAR, naming the environment variable that holds the deploy key, never the key itself")
	}
	_, err := s.every(src.Every)
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
		src.LastSync.Failed = res.FilesFailed
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
	return out, nil
}
