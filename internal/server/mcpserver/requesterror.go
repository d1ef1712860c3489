package mcpserver

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"ragd"
	"ragd/internal/authn"
)

// requestError turns a service error met outside a tool (reading a prompt,
// completing an argument) into the JSON-RPC error the client reads, in the
// words toolError uses: the caller's mistakes (bad input, unknown or
// forbidden names) are invalid params, the rest internal errors, whose
// details only the log has.
func requestError(log *slog.Logger, method string, err error) error {
	level, code := slog.LevelInfo, int64(jsonrpc.CodeInvalidParams)
	switch ragd.KindOf(err) {
	case ragd.KindInvalid, ragd.KindNotFound, ragd.KindForbidden, ragd.KindTooLarge:
	case ragd.KindUnavailable:
		level, code = slog.LevelWarn, jsonrpc.CodeInternalError
	default:
		level, code = slog.LevelError, jsonrpc.CodeInternalError
	}
	log.Log(context.Background(), level, "mcp request failed", "method", method, "error", err)
	return &jsonrpc.Error{Code: code, Message: toolError(err).Error()}
}

// callerContext is ctx carrying the caller's principal, which the HTTP auth
// middleware put in the request's token info (see guarded).
func callerContext(ctx context.Context, extra *sdk.RequestExtra) context.Context {
	if extra != nil {
		if p := authn.FromTokenInfo(extra.TokenInfo); p != nil {
			return authn.WithPrincipal(ctx, p)
		}
	}
	return ctx
}
