package cache

import "ragd/internal/platform/telemetry"

// endLookup ends a lookup's span saying whether it hit, and says so on
// the span of the request it served too, where an operator filters.
func endLookup(parent, span telemetry.Span, tool string, hit bool) {
	if span.Recording() {
		span.Set(telemetry.Bool(telemetry.KeyCacheHit, hit), telemetry.String(telemetry.KeyTool, tool))
		parent.Set(telemetry.Bool(telemetry.KeyCacheHit, hit))
	}
	span.End(nil)
}
