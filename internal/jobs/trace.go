package jobs

import (
	"context"

	"ragd/internal/platform/telemetry"
)

// traced runs enqueue inside the span of sending the job, and gives it
// the trace context its payload carries across the queue, so the job's
// runs continue the trace of the request (or job) that sent it. A job
// that a directory sends (linked) also records the directory's span, for
// its runs to link to. Untraced, the carrier is nil and no span opens.
func traced(ctx context.Context, typ, jobID, namespace string, linked bool, enqueue func(context.Context, *telemetry.Carrier) error) error {
	sctx, span := telemetry.StartProducer(ctx, "jobs.enqueue "+typ)
	if span.Recording() {
		span.Set(telemetry.String(telemetry.KeyJobID, jobID), telemetry.String(telemetry.KeyJobType, typ),
			telemetry.String(telemetry.KeyNamespace, namespace))
	}
	c := telemetry.CarrierOf(sctx)
	if linked {
		c.LinkTo(ctx)
	}
	err := enqueue(sctx, c)
	span.End(err)
	return err
}
