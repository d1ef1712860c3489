package keyspace

// The keys of sources (package sources): one block, touched one key at a
// time, so none carries a hash tag.

// Source is <p>:source:<id>, a source's record as JSON (ragd.Source and
// what sources keeps beside it).
func (k Keys) Source(id string) string { return k.Prefix() + ":source:" + id }

// Sources is <p>:sources, the set of every source's id.
func (k Keys) Sources() string { return k.Prefix() + ":sources" }

// SourceScheduler is <p>:sources:scheduler, the lease of the one replica
// that starts the sources' scheduled syncs.
func (k Keys) SourceScheduler() string { return k.Prefix() + ":sources:scheduler" }

// SourceState is <p>:source:<id>:state, what a source's kind keeps of
// its last sync for the next one (a crawl's validators, a bucket's
// ETags): one value, removed with the source.
func (k Keys) SourceState(id string) string { return k.Source(id) + ":state" }
