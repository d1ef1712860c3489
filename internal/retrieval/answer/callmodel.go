package answer

import (
	"errors"

	"ragd"
)

// CallModel is a chat model for one call, such as the MCP client's own
// model asked through sampling: it writes the grounded answer when no chat
// model is configured. A configured model always takes precedence.
type CallModel interface {
	ragd.ChatModel
	// Route names the route of the answers it writes (e.g. "sampling").
	Route() string
}

// ErrDeferred, returned (wrapped or not) by a CallModel, means the model
// answers later, in another request: the MCP client is asked for the
// answer in an input-required result and calls again with it. Query then
// returns the error as is, with no extractive answer in its place.
var ErrDeferred = errors.New("the answer is deferred to the client's model")

// writer is the model that writes an answer and the route its answers take.
type writer struct {
	model ragd.ChatModel
	route string
	// configured is set for the server's own chat model: only its answers
	// are ranked among candidates and cached (a client's model is the
	// client's, and its answers are not for other callers).
	configured bool
}

// writerFor picks the configured model, else the call's, else none.
func (s *Service) writerFor(req QueryRequest) *writer {
	switch {
	case s.LLM != nil:
		return &writer{model: s.LLM, route: RouteLLM, configured: true}
	case req.Model != nil:
		return &writer{model: req.Model, route: req.Model.Route()}
	}
	return nil
}
