package mcpserver

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestSDKLoggerKeepsWarningsOnly: the SDK's per-session Info lines (three
// per stateless call) are dropped, its warnings and errors kept, with
// ragd's attributes.
func TestSDKLoggerKeepsWarningsOnly(t *testing.T) {
	var buf bytes.Buffer
	log := sdkLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})).With("component", "mcp"))
	log.Info("server session connected", "session_id", "x")
	log.Debug("noise")
	if buf.Len() != 0 {
		t.Fatalf("info reached the log: %s", buf.String())
	}
	log.Warn("failed to connect")
	log.WithGroup("g").Error("boom", "k", "v")
	out := buf.String()
	if !strings.Contains(out, "failed to connect") || !strings.Contains(out, "component=mcp") || !strings.Contains(out, "g.k=v") {
		t.Fatalf("warning or error lost: %s", out)
	}
}
