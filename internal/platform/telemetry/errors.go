package telemetry

import (
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
)

// warnEvery bounds how often a failing export is logged: a collector
// that is down fails every batch.
const warnEvery = time.Minute

// watchErrors sends the SDK's errors (a failed export, spans dropped) to
// log, at most one line a minute. The SDK has one error handler per
// process, so the last Provider's log gets them.
func watchErrors(log *slog.Logger) {
	if log == nil {
		return
	}
	var mu sync.Mutex
	var last time.Time
	var missed int
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < warnEvery {
			missed++
			return
		}
		log.Warn("telemetry: spans not exported (is telemetry.otlp_endpoint's collector up?)", "error", err, "errors_since_last", missed)
		last, missed = time.Now(), 0
	}))
}
