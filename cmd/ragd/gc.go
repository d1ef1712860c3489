package main

import (
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcWindowFloor is the least the heap may grow between collections under
// gcPercent.
const gcWindowFloor = 16 << 20

// gcPercent is the GC percent ragd runs with, unless GOGC is set, for a
// live heap of live bytes: the heap may grow by a quarter of what is live
// between collections, and by at least gcWindowFloor. Most of a ragd
// process's live heap is static (the word vectors, WordNet): under Go's
// default of 100 the heap doubles between collections, and each search's
// allocations stream through memory long out of the CPU's caches. REST
// keyword search at concurrency 1, ragd as its own process: 1.67–1.69×
// raw Weaviate at 100, 1.50–1.51× at 25 (docs/PERFORMANCE.md).
func gcPercent(live uint64) int {
	p := int(math.Ceil(100 * float64(gcWindowFloor) / float64(max(live, 1))))
	return min(max(p, 25), 100)
}

// tuneGC sets gcPercent for the live heap once the process has loaded its
// models; an operator's GOGC wins.
func tuneGC(log *slog.Logger) {
	if os.Getenv("GOGC") != "" {
		return
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := s[0].Value.Uint64()
	p := gcPercent(live)
	debug.SetGCPercent(p)
	log.Info("gc percent", "percent", p, "live_heap_bytes", live)
}
