package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/hibiken/asynq"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/jobs"
	"ragd/internal/platform/kv"
	"ragd/internal/platform/telemetry"
)

// Server is the Asynq server that runs the pipeline.
type Server struct {
	srv *asynq.Server
	mux *asynq.ServeMux
}

// ServerOptions configure the Asynq server.
type ServerOptions struct {
	Queue       string
	Concurrency int
	// PollInterval is how often an idle worker looks for a new job.
	PollInterval time.Duration
	Log          *slog.Logger
	// Importer, when set, runs import jobs.
	Importer Importer
	// Switcher, when set, runs embedder switches.
	Switcher Switcher
	// Pin, when set, fixes each job's context to the embedder and
	// collection live when it starts (live.Holder.Pin), so a job embeds
	// and writes in one vector space throughout.
	Pin func(context.Context) (context.Context, func())
	// Telemetry, when set, gives each run of a job a span (trace.go).
	Telemetry *telemetry.Provider
}

// NewServer returns a server processing the queue with the pipeline.
func NewServer(st *kv.Store, opts ServerOptions, p *Pipeline) *Server {
	srv := asynq.NewServerFromRedisClient(st.Client(), asynq.Config{
		Concurrency:       opts.Concurrency,
		Queues:            map[string]int{opts.Queue: 1},
		TaskCheckInterval: opts.PollInterval,
		RetryDelayFunc:    retryDelay,
		Logger:            slogAdapter{opts.Log},
		ShutdownTimeout:   20 * time.Second,
		ErrorHandler: asynq.ErrorHandlerFunc(func(ctx context.Context, t *asynq.Task, err error) {
			p.Queue.CountFailure(ctx, t, err)
			logFailure(ctx, opts.Log, t, err)
		}),
	})
	mux := asynq.NewServeMux()
	mux.Use(p.Queue.Counting, jobs.AsAsker)
	mux.HandleFunc(jobs.TypeIngestDocument, p.handleDocument(opts.Log))
	mux.HandleFunc(jobs.TypeIngestDirectory, func(ctx context.Context, t *asynq.Task) error {
		var pl jobs.DirectoryPayload
		if err := json.Unmarshal(t.Payload(), &pl); err != nil {
			return fmt.Errorf("bad payload: %v: %w", err, asynq.SkipRetry)
		}
		id, _ := asynq.GetTaskID(ctx)
		rep := jobs.NewReporter(t)
		var res ragd.DirectoryResult
		err := p.cancellable(ctx, jobs.RefOf(ctx, t), func() (err error) {
			res, err = p.IndexDirectory(ctx, id, pl, rep)
			return err
		}, nil)
		if errors.Is(err, jobs.ErrCancelled) {
			return err
		}
		if err != nil {
			return classify(err)
		}
		rep.Result(res)
		return nil
	})
	if opts.Importer != nil {
		mux.HandleFunc(jobs.TypeImport, p.handleImport(opts.Importer, opts.Log))
	}
	if opts.Switcher != nil {
		mux.HandleFunc(jobs.TypeEmbedderSwitch, p.handleSwitch(opts.Switcher, opts.Log))
	}
	if opts.Telemetry != nil {
		mux.Use(tracing(opts.Telemetry))
	}
	if opts.Pin != nil {
		mux.Use(pinning(opts.Pin))
	}
	return &Server{srv: srv, mux: mux}
}

// handleDocument runs a document job: its text read from where the
// enqueue held it, released once the job has ended; a directory's file
// leaves its outcome.
func (p *Pipeline) handleDocument(log *slog.Logger) asynq.HandlerFunc {
	return func(ctx context.Context, t *asynq.Task) error {
		var pl jobs.DocumentPayload
		if err := json.Unmarshal(t.Payload(), &pl); err != nil {
			return fmt.Errorf("bad payload: %v: %w", err, asynq.SkipRetry)
		}
		id, _ := asynq.GetTaskID(ctx)
		rep := jobs.NewReporter(t)
		var res ragd.DocumentResult
		err := p.cancellable(ctx, jobs.DocumentRef(ctx, pl), func() (err error) {
			res, err = p.indexHeld(ctx, id, pl, rep)
			return err
		}, func(ctx context.Context) { p.discardCancelled(ctx, pl) })
		noteResult(ctx, res)
		if err != nil && !errors.Is(err, jobs.ErrCancelled) {
			err = classify(err)
			if !final(ctx, err) {
				return err // its text stays for the next run
			}
			p.discardAfterFailure(ctx, pl, log)
		}
		if pl.TextHeld {
			p.Queue.ReleaseText(ctx, id) // the job has ended
		}
		if err != nil {
			return err
		}
		if pl.ParentID != "" {
			// A directory's file: its outcome stands for its task, which
			// Asynq does not keep (jobs/outcome.go).
			return p.Queue.FileDone(ctx, id, pl, rep.Reported(), res)
		}
		rep.Result(res)
		return nil
	}
}

// indexHeld is IndexDocument for job id, its text first read from where
// the enqueue held it (jobs.DocumentPayload.TextHeld). A text gone while
// its document is indexed was this job's — the document id follows the
// text — so an earlier run indexed it and ended (its worker then died
// before Asynq heard): this run ends as that document's dedup hit.
func (p *Pipeline) indexHeld(ctx context.Context, id string, pl jobs.DocumentPayload, rep *jobs.Reporter) (ragd.DocumentResult, error) {
	pl, err := p.Queue.HeldText(ctx, id, pl)
	res := ragd.DocumentResult{DocumentID: pl.DocumentID, Source: pl.Source}
	switch {
	case errors.Is(err, jobs.ErrTextGone):
		doc, gerr := p.Registry.GetAny(ctx, pl.Namespace, pl.DocumentID)
		if gerr == nil {
			res.DedupHit, res.ContentHash = true, doc.ContentHash
			return res, nil
		}
		if ragd.KindOf(gerr) != ragd.KindNotFound {
			return res, gerr
		}
		return res, fmt.Errorf("%w (it waited longer than %v, or was cancelled): %w", err, jobs.TextHold, asynq.SkipRetry)
	case err != nil:
		return res, ragd.Unavailable("redis", err)
	}
	return p.IndexDocument(ctx, pl, rep)
}

// classify marks errors that no retry can fix (a corrupt file, a path outside
// the roots) so the job fails at once with its message.
func classify(err error) error {
	if ingest.IsPermanent(err) || ragd.KindOf(err) == ragd.KindInvalid || ragd.KindOf(err) == ragd.KindForbidden {
		return fmt.Errorf("%v: %w", err, asynq.SkipRetry)
	}
	return err
}

// final reports whether a job that failed with err will not be retried.
func final(ctx context.Context, err error) bool {
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	return errors.Is(err, asynq.SkipRetry) || retried >= maxRetry
}

// retryDelay backs off exponentially from 1 s to a minute, with jitter so
// jobs that failed together do not retry together. A job that failed
// because a dependency was unavailable (an open breaker, Weaviate
// unreachable) waits at least the error's Retry-After — an open
// breaker's is its open interval, resilience.circuit_open_for — doubled
// on each retry up to maxUnavailableDelay: its retries outlast an outage
// (worker.max_retries 3 and a 30 s breaker span 3.5 min) instead of
// hitting the open breaker within seconds and failing for good, as 158 of
// 200 files did across a 40 s stop.
func retryDelay(n int, err error, _ *asynq.Task) time.Duration {
	var re *ragd.Error
	if errors.As(err, &re) && re.Kind == ragd.KindUnavailable {
		base := max(time.Duration(re.RetryAfterSeconds)*time.Second, minUnavailableDelay)
		d := min(base<<min(n, 4), maxUnavailableDelay)
		return d + time.Duration(rand.Int64N(int64(d/2)+1))
	}
	d := time.Second << min(n, 6)
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// The bounds of a retry's delay after a dependency was unavailable.
const (
	minUnavailableDelay = 5 * time.Second
	maxUnavailableDelay = 5 * time.Minute
)

// Start begins processing in the background.
func (s *Server) Start() error { return s.srv.Start(s.mux) }

// Shutdown stops fetching new tasks and waits for running ones.
func (s *Server) Shutdown() { s.srv.Shutdown() }

// slogAdapter lets Asynq log through slog.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...)) }
func (a slogAdapter) Info(args ...any)  { a.l.Info(fmt.Sprint(args...)) }
func (a slogAdapter) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...)) }
func (a slogAdapter) Error(args ...any) { a.l.Error(fmt.Sprint(args...)) }
func (a slogAdapter) Fatal(args ...any) { a.l.Error(fmt.Sprint(args...)) }
