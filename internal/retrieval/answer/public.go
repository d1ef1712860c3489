package answer

import (
	"context"

	"ragd"
)

// publicText is what of err a caller reads inside an answer (an agent
// step's error, a fallback note): ragd.PublicMessage, else only a pointer
// to the log — a dependency's failure may name hosts of the server's
// network, and answers reach REST and MCP callers alike.
func publicText(err error) string {
	if msg := ragd.PublicMessage(err); msg != "" {
		return msg
	}
	return "the server logged the details"
}

// publicError is publicText for a failure logged nowhere else: the log
// gets its details.
func (s *Service) publicError(ctx context.Context, what string, err error) string {
	if ragd.PublicMessage(err) == "" {
		s.Log.WarnContext(ctx, what+" failed", "error", err)
	}
	return publicText(err)
}
