package stack

// SpecQueries are 40 questions about Go's specification, memory model,
// assembler and GODEBUG pages (GOROOT/doc), for benchmarks searching a
// namespace built from them.
var SpecQueries = []string{
	"happens before relation", "synchronized before", "data race definition", "channel send and receive",
	"mutex unlock", "goroutine creation", "atomic operations", "sync once", "finalizers", "compiler reordering",
	"method sets of a type", "interface types", "type assertions", "slice expressions", "composite literals",
	"constant expressions", "range clause over channels", "defer statements", "select statement", "package initialization",
	"GODEBUG settings", "assembler pseudo registers", "frame pointer", "struct tags", "string conversions",
	"integer overflow", "label scopes", "blank identifier", "function literals closures", "generic type parameters",
	"type inference", "comparison operators", "shift expressions", "built-in append", "panic and recover",
	"import declarations", "map types", "pointer types", "iota constant generator", "goto statements",
}
