package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"ragd"
	"ragd/internal/platform/resilience"
)

// A wait:true index whose job failed because a dependency was down (its
// retries spent on an open breaker) answers what a direct call answers:
// 503 with Retry-After, naming the dependency but not its failure. It
// once answered 422, as for a corrupt file, which still answers 422.
func TestWaitedJobFailedForADependencyIs503(t *testing.T) {
	g := resilience.New("weaviate", resilience.Policy{Timeout: time.Second, FailThreshold: 1, OpenFor: time.Minute,
		InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}, nil, resilience.Hooks{})
	down := func(context.Context) error { return errors.New("dial tcp 10.0.0.7:50051: connect: connection refused") }
	_ = resilience.Run(context.Background(), g, "upsert", down)
	open := resilience.Run(context.Background(), g, "upsert", down)
	if g.State() != "open" {
		t.Fatalf("breaker %s after a failure", g.State())
	}
	for _, c := range []struct {
		name, jobError string
		status         int
	}{
		{"open breaker", fmt.Sprintf("write chunks: %v", open), http.StatusServiceUnavailable},
		{"embedder down", "embed: " + ragd.Unavailable("embedder", errors.New("EOF")).Error(), http.StatusServiceUnavailable},
		{"timeout", "weaviate did not answer within 30s: context deadline exceeded", http.StatusServiceUnavailable},
		{"corrupt file", "parse report.pdf: not a PDF: the weaviate is unavailable tutorial", http.StatusUnprocessableEntity},
	} {
		job := &ragd.Job{ID: "j1", Status: ragd.JobFailed, Error: c.jobError}
		rec := httptest.NewRecorder()
		ctx := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/tools/rag_index", nil), rec)
		(&handlers{log: slog.New(slog.NewTextHandler(io.Discard, nil))}).handleError(failed(job), ctx)
		body := rec.Body.String()
		if rec.Code != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, rec.Code, body, c.status)
			continue
		}
		if c.status == http.StatusServiceUnavailable &&
			(rec.Header().Get("Retry-After") == "" || strings.Contains(body, "10.0.0.7") || !strings.Contains(body, "job j1 failed")) {
			t.Errorf("%s: Retry-After %q, body %s: want a hint, the job, and no address", c.name, rec.Header().Get("Retry-After"), body)
		}
	}
}
