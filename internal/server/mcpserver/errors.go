package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
)

// toolError turns a service error into the message an agent reads in a tool
// result with isError:true. The session goes on; internal errors say only
// that something failed, never their text.
func toolError(err error) error {
	var re *ragd.Error
	if !errors.As(err, &re) {
		return errors.New("internal error: the server logged the details")
	}
	switch re.Kind {
	case ragd.KindInvalid:
		if len(re.Fields) == 0 {
			return fmt.Errorf("invalid input: %s", re.Error())
		}
		var parts []string
		for _, f := range re.Fields {
			parts = append(parts, f.Msg)
		}
		return fmt.Errorf("invalid input: %s", strings.Join(parts, "; "))
	case ragd.KindNotFound:
		return fmt.Errorf("not found: %s", re.Error())
	case ragd.KindForbidden:
		return fmt.Errorf("forbidden: %s", re.Error())
	case ragd.KindUnavailable:
		return fmt.Errorf("temporarily unavailable: %s; retry in %d s", re.Message, max(re.RetryAfterSeconds, 1))
	case ragd.KindTooLarge:
		return fmt.Errorf("too large: %s", re.Error())
	case ragd.KindConflict:
		return fmt.Errorf("conflict: %s", re.Error())
	default:
		return errors.New("internal error: the server logged the details")
	}
}

// logToolError records a failed tool call: the tool, the principal's key
// name (never its token) and the error, at a level by kind, internal
// failures as errors.
func logToolError(ctx context.Context, log *slog.Logger, req *sdk.CallToolRequest, err error) {
	tool := ""
	if req != nil && req.Params != nil {
		tool = req.Params.Name
	}
	level := slog.LevelInfo
	switch ragd.KindOf(err) {
	case ragd.KindInternal:
		level = slog.LevelError
	case ragd.KindUnavailable:
		level = slog.LevelWarn
	}
	log.Log(ctx, level, "tool call failed", "tool", tool, "error", err)
}
