package jobs

import (
	"context"
	"encoding/json"

	"github.com/hibiken/asynq"

	"ragd"
)

// AsAsker runs each job under the audience of the principal that asked
// for it (its payload's Viewer, ragd.WithAudience): what the job reads of
// the namespace's documents — a sync's plan, which leaves out what that
// principal may not see — is what that principal may see. Imports and
// switches, which carry no Viewer, run as an operator's.
func AsAsker(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		var m indexMeta
		_ = json.Unmarshal(t.Payload(), &m)
		return next.ProcessTask(ragd.WithAudience(ctx, ragd.ViewerAudience(m.Viewer)), t)
	})
}
