// Package embeddersvc answers the requests about the embedder without
// their transport: which embedder is live (and a switch under way), and
// the start of a switch to another configured one — the target probed,
// the new collection named and the switch job enqueued. It runs no job:
// switchjob does.
package embeddersvc

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"

	"ragd"
	"ragd/internal/authn"
	"ragd/internal/jobs"
	"ragd/internal/library"
	"ragd/internal/store/live"
	"ragd/wire"
)

// EmbedderStatus is wire.EmbedderStatus, the contract REST and the client share.
type EmbedderStatus = wire.EmbedderStatus

// SwitchRequest is wire.SwitchRequest.
type SwitchRequest = wire.SwitchRequest

// SwitchAccepted is wire.SwitchAccepted.
type SwitchAccepted = wire.SwitchAccepted

// Embedders reports which embedder is live and starts a switch of the
// whole knowledge base to another one: the switch job (package
// switchjob) re-embeds the stored chunks into a new collection while
// everything goes on from the old one, then cuts over
// (docs/OPERATIONS.md).
type Embedders struct {
	Live *live.Holder
	// Names are the embedders the config names: live.DefaultName and the
	// keys of embedders.
	Names []string
	Queue *jobs.Queue
	// Collection is weaviate.collection, the stem of every collection a
	// switch creates.
	Collection string
	Log        *slog.Logger
}

// Status reports the live embedder and the switch under way, to an
// operator alone: a switch's progress counts the chunks of every
// namespace and document, and its error quotes the embedder's answer.
func (e *Embedders) Status(ctx context.Context) (EmbedderStatus, error) {
	if err := authn.RequireOperator(ctx, "reading the embedder and its switch"); err != nil {
		return EmbedderStatus{}, err
	}
	st, err := e.Live.Records().Load(ctx)
	if err != nil {
		return EmbedderStatus{}, ragd.Unavailable("redis", err)
	}
	// A report builds nothing: what this process follows has been built
	// already (a state newer than it follows is a second away).
	side := e.Live.Built(st.Live)
	if side == nil {
		side = e.Live.Current().Live
	}
	out := EmbedderStatus{Live: info(side)}
	sw := st.Switch
	if sw == nil {
		return out, nil
	}
	s := &wire.SwitchStatus{JobID: sw.JobID, To: wire.SwitchTarget{Name: sw.To.Name}, Phase: string(sw.Phase),
		Progress: ragd.Progress{Done: sw.Done, Total: sw.Total, Unit: "chunks"}, Error: sw.Error, Status: ragd.JobQueued}
	if to := e.Live.Built(sw.To); to != nil {
		s.To.Model, s.To.Dimension = to.Model, to.Embedder.Dimension()
	}
	if job, err := e.Queue.Job(ctx, sw.JobID); err == nil {
		s.Status = job.Status
	}
	out.Switch = s
	return out, nil
}

func info(s *live.Side) wire.EmbedderInfo {
	return wire.EmbedderInfo{Name: s.Target.Name, Provider: s.Provider, Model: s.Model, Dimension: s.Embedder.Dimension()}
}

// StartSwitch checks that the named embedder answers, records the switch
// (from then on every process writes to both collections) and enqueues
// the job that copies and cuts over.
func (e *Embedders) StartSwitch(ctx context.Context, req SwitchRequest) (SwitchAccepted, error) {
	if err := authn.RequireOperator(ctx, "switching the embedder"); err != nil {
		return SwitchAccepted{}, err
	}
	name := strings.TrimSpace(req.To)
	if name == "" {
		return SwitchAccepted{}, ragd.Invalid("to", "missing", "to names the embedder to switch to: default or a name under embedders")
	}
	if !slices.Contains(e.Names, name) {
		return SwitchAccepted{}, ragd.NotFound("no embedder %s: the config names %s", library.QuoteClipped(name), strings.Join(e.Names, ", "))
	}
	st, err := e.Live.Records().Load(ctx)
	if err != nil {
		return SwitchAccepted{}, ragd.Unavailable("redis", err)
	}
	if err := live.Refuse(st, name); err != nil {
		return SwitchAccepted{}, err
	}
	to := live.Target{Name: name, Collection: e.nextCollection(st)}
	if err := e.probe(ctx, to); err != nil {
		return SwitchAccepted{}, err
	}
	id := jobs.NewJobID()
	from, err := e.Live.Records().Begin(ctx, id, to)
	if err != nil {
		return SwitchAccepted{}, storeError(err)
	}
	if err := e.Queue.EnqueueSwitch(ctx, id, jobs.SwitchPayload{From: from.Name, To: name, CreatedAt: time.Now().UTC()}); err != nil {
		e.abandon(context.WithoutCancel(ctx), id)
		return SwitchAccepted{}, library.EnqueueFailed(err)
	}
	e.Log.InfoContext(ctx, "embedder switch started", "job_id", id, "from", from.Name, "to", name, "collection", to.Collection)
	return SwitchAccepted{JobID: id, Status: ragd.JobQueued, From: from.Name, To: name}, nil
}

func storeError(err error) error {
	var re *ragd.Error
	if errors.As(err, &re) {
		return err
	}
	return ragd.Unavailable("redis", err)
}

// probe builds the target and embeds one text with it: a switch to an
// embedder that does not answer is refused before any job.
func (e *Embedders) probe(ctx context.Context, to live.Target) error {
	side, err := e.Live.Side(ctx, to)
	if err == nil {
		var v [][]float32
		v, err = side.Embedder.Embed(ctx, []string{"ragd embedder check"})
		if err == nil && (len(v) != 1 || len(v[0]) == 0) {
			err = errors.New("it answered with no vector")
		}
	}
	if err != nil {
		return ragd.Invalid("to", "embedder_unavailable", "embedder %q does not answer: %s", to.Name, err.Error())
	}
	return nil
}

// abandon forgets a switch whose job could not be enqueued.
func (e *Embedders) abandon(ctx context.Context, id string) {
	if err := e.Live.Records().Abandon(ctx, id); err != nil {
		e.Log.ErrorContext(ctx, "a switch whose job was not enqueued is still recorded; cancel its job id", "job_id", id, "error", err)
	}
}

// nextCollection names the collection a switch from st builds: the stem
// and the generation the switch starts, so no two switches ever share a
// name (a process may still hold a dropped one's client). Weaviate class
// names allow letters, digits and _.
func (e *Embedders) nextCollection(st live.State) string {
	return e.Collection + "_" + strconv.FormatInt(st.Gen+1, 10)
}
