// Package memstore is an in-memory ragd.ChunkStore: a fake of the Weaviate
// store for service-level tests that need no Weaviate (go test -short).
// It keeps what the services rely on — tenants per namespace, id replacement,
// the document/tag/source-type filters, version deletes, id-ordered scans,
// chunk_index-ordered document reads — and ranks with its own BM25 and
// cosine scoring, so a test may rely on which chunk wins a clear contest,
// never on a score's value. The contract test runs the same checks against
// the real store, so the fake cannot drift from it unnoticed.
package memstore
