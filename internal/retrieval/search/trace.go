package search

import (
	"context"

	"ragd"
	"ragd/internal/platform/telemetry"
)

// endPlan ends the plan's span, putting what an operator filters
// searches by on it and on the span it belongs to (the request's or the
// tool call's): namespaces, mode, top_k, phrasings. The query's text
// goes only where telemetry.record_queries allows it.
func endPlan(ctx context.Context, span telemetry.Span, p Plan, err error) {
	defer span.End(err)
	if !span.Recording() || err != nil {
		return
	}
	attrs := []telemetry.Attr{telemetry.String(telemetry.KeyMode, p.Mode), telemetry.Int(telemetry.KeyTopK, p.TopK),
		telemetry.Int(telemetry.KeyPhrasings, 1+len(p.Queries))}
	if len(p.Namespaces) == 1 {
		attrs = append(attrs, telemetry.String(telemetry.KeyNamespace, p.Namespaces[0]))
	} else {
		attrs = append(attrs, telemetry.Strings(telemetry.KeyNamespaces, p.Namespaces))
	}
	for _, s := range []telemetry.Span{span, telemetry.Current(ctx)} {
		s.Set(attrs...)
		s.Text(telemetry.KeyQuery, p.Query)
	}
}

// endRetrieve ends a retrieval's span with the number of hits kept.
func endRetrieve(span telemetry.Span, hits []ragd.Hit, err error) {
	if span.Recording() {
		span.Set(telemetry.Int(telemetry.KeyResults, len(hits)))
	}
	span.End(err)
}

// endEmbedQuery ends the span of a query's embedding, saying whether it
// came from memory (QueryVectors) or from the embedder.
func endEmbedQuery(span telemetry.Span, remembered bool, err error) {
	if span.Recording() {
		span.Set(telemetry.Bool(telemetry.KeyCacheHit, remembered))
	}
	span.End(err)
}
