package jobs

import (
	"context"
	"time"

	"github.com/hibiken/asynq"
)

// TypeEmbedderSwitch re-embeds every stored chunk with another embedder
// and cuts over to it (live.State holds where it is).
const TypeEmbedderSwitch = "embedder:switch"

// AllNamespaces is the kb_name of a job that concerns every namespace (an
// embedder switch): it is listed to operators only, as no namespace-limited
// caller may use it.
const AllNamespaces = "*"

// switchTimeout bounds one run of a switch; a run cut short resumes where
// it stopped, so this only has to outlast a long copy.
const switchTimeout = 24 * time.Hour

// switchRetries is how often a switch run that died (its worker stopped,
// Weaviate gone) is tried again: each retry resumes the copy.
const switchRetries = 50

// SwitchPayload asks a worker to carry out the embedder switch recorded
// under the job's id.
type SwitchPayload struct {
	// Namespace is AllNamespaces.
	Namespace string    `json:"kb_name"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	CreatedAt time.Time `json:"created_at"`
}

// EnqueueSwitch enqueues an embedder switch under jobID.
func (q *Queue) EnqueueSwitch(ctx context.Context, jobID string, p SwitchPayload) error {
	p.Namespace = AllNamespaces
	return q.enqueue(ctx, TypeEmbedderSwitch, jobID, p, asynq.Timeout(switchTimeout), asynq.MaxRetry(switchRetries))
}
