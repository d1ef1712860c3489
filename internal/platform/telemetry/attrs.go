package telemetry

import "go.opentelemetry.io/otel/attribute"

// Attr is one attribute of a span.
type Attr = attribute.KeyValue

// String, Int, Bool and Float are attributes of each type.
func String(k, v string) Attr        { return attribute.String(k, v) }
func Int(k string, v int) Attr       { return attribute.Int(k, v) }
func Bool(k string, v bool) Attr     { return attribute.Bool(k, v) }
func Float(k string, v float64) Attr { return attribute.Float64(k, v) }

// Strings is a list attribute.
func Strings(k string, v []string) Attr { return attribute.StringSlice(k, v) }

// The attributes operators filter on, named once here (docs/TELEMETRY.md
// lists them). None of them holds a query's or a document's text.
const (
	KeyNamespace  = "ragd.namespace"
	KeyNamespaces = "ragd.namespaces"
	KeyTool       = "ragd.tool"
	KeyMode       = "ragd.search.mode"
	KeyTopK       = "ragd.search.top_k"
	KeyPhrasings  = "ragd.search.phrasings"
	KeyResults    = "ragd.search.results"
	KeyQuery      = "ragd.search.query" // only with telemetry.record_queries
	KeyCacheHit   = "ragd.cache.hit"
	KeyJobID      = "ragd.job.id"
	KeyJobType    = "ragd.job.type"
	KeyAttempt    = "ragd.job.attempt"
	KeyParentJob  = "ragd.job.parent_id"
	KeyDocumentID = "ragd.document.id"
	KeySourceType = "ragd.document.source_type"
	KeyChunks     = "ragd.chunks"
	KeyTexts      = "ragd.embed.texts"
	KeyPages      = "ragd.pages"
	KeyPage       = "ragd.page"
	KeyFiles      = "ragd.files"
	KeyBreaker    = "ragd.breaker.state"
	KeyAttempts   = "ragd.attempts"
	KeyDependency = "ragd.dependency"
	KeyStatus     = "ragd.status"
)
