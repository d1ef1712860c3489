package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"ragd"
	"ragd/internal/platform/config"
	"ragd/internal/platform/telemetry"
)

// startTelemetry starts tracing when telemetry.otlp_endpoint is set, and
// returns log with each line logged in a traced context stamped with its
// trace. Off, it returns nil and log unchanged: nothing is wrapped, so
// nothing costs.
func startTelemetry(ctx context.Context, c config.Telemetry, log *slog.Logger) (*telemetry.Provider, *slog.Logger, error) {
	tel, err := telemetry.New(ctx, telemetry.Config{Endpoint: c.OTLPEndpoint, Protocol: c.Protocol, ServiceName: c.ServiceName,
		ServiceVersion: ragd.Version, SampleRatio: c.SampleRatio, Headers: c.Headers, RecordQueries: c.RecordQueries}, log)
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: %w", err)
	}
	if tel == nil {
		return nil, log, nil
	}
	log = slog.New(telemetry.LogHandler(log.Handler()))
	log.Info("tracing on", "otlp_endpoint", c.OTLPEndpoint, "protocol", c.Protocol, "sample_ratio", c.SampleRatio)
	return tel, log, nil
}

// telemetryShutdownWait bounds the export of the last spans at exit.
const telemetryShutdownWait = 5 * time.Second

// stopTelemetry exports what spans are left, within telemetryShutdownWait.
func (a *App) stopTelemetry() {
	ctx, cancel := context.WithTimeout(context.Background(), telemetryShutdownWait)
	defer cancel()
	if err := a.Telemetry.Shutdown(ctx); err != nil {
		a.Log.Warn("telemetry: the last spans were not exported", "error", err)
	}
}
