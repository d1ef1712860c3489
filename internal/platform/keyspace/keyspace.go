// Package keyspace names every Redis key ragd keeps. It is the one place a
// key pattern is spelled: the registry, vocabularies, cache, job records,
// leases and sessions all take their keys from a Keys built from
// redis.key_prefix, so no ragd key can land outside the prefix and every
// key that a script or transaction touches together carries the same
// hash tag.
//
// On a Redis Cluster a script, a MULTI block and a WATCH may only touch
// keys of one hash slot, and Redis picks the slot from the part of the key
// between the first "{" and the next "}". So every key of one namespace
// carries the namespace as its tag (<p>:{<ns>}:…) and every job key the
// queue's (<p>:jobs:{<queue>}:…, the tag Asynq gives its own keys of that
// queue). Keys that are only ever touched alone (the namespace list,
// watcher leases, sessions) carry none and spread over the cluster.
//
// A redis.key_prefix holding a "{…}" of its own would become every key's
// tag: everything would still work, in one slot.
package keyspace

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// DefaultPrefix is redis.key_prefix's default, which the zero Keys uses.
const DefaultPrefix = "ragd"

// Keys names ragd's keys under one prefix. The zero Keys uses
// DefaultPrefix.
type Keys struct{ prefix string }

// New returns the keys under prefix (redis.key_prefix); "" means
// DefaultPrefix.
func New(prefix string) Keys { return Keys{prefix: prefix} }

// Prefix is the prefix every key of these starts with, followed by ":".
func (k Keys) Prefix() string {
	if k.prefix == "" {
		return DefaultPrefix
	}
	return k.prefix
}

// namespace is the start of every key of one namespace: <p>:{<ns>}, the
// namespace being the key's hash tag. Namespace names (ragd.ValidNamespace)
// hold no braces, so the tag is the whole name.
func (k Keys) namespace(ns string) string { return k.Prefix() + ":{" + ns + "}" }

// Documents is <p>:{<ns>}:docs, a hash of the namespace's documents:
// document id → the registry's Document as JSON.
func (k Keys) Documents(ns string) string { return k.namespace(ns) + ":docs" }

// Current is <p>:{<ns>}:current, a hash of which version of each document
// searches see: document id → content hash.
func (k Keys) Current(ns string) string { return k.namespace(ns) + ":current" }

// ContentHashes is <p>:{<ns>}:content, a hash for deduplication: content
// hash of the normalized text → document id.
func (k Keys) ContentHashes(ns string) string { return k.namespace(ns) + ":content" }

// RawHashes is <p>:{<ns>}:raw, a hash for deduplication: sha256 of the
// bytes as loaded → document id.
func (k Keys) RawHashes(ns string) string { return k.namespace(ns) + ":raw" }

// Order is <p>:{<ns>}:order, a sorted set of the namespace's documents in
// listing order (every score 0, members "source\x00id").
func (k Keys) Order(ns string) string { return k.namespace(ns) + ":order" }

// Access is <p>:{<ns>}:access, a hash of the namespace's documents that
// are shared with groups only: document id → the groups, comma-separated
// (open documents are absent), so a listing for a group finds what it
// may not see without reading every document.
func (k Keys) Access(ns string) string { return k.namespace(ns) + ":access" }

// Epoch is <p>:{<ns>}:epoch, a counter every change to Current moves in
// the same transaction; it is also part of the namespace's cache
// generation.
func (k Keys) Epoch(ns string) string { return k.namespace(ns) + ":epoch" }

// DocumentLock is <p>:{<ns>}:lock:<id>, a document's write lock (a lease
// holding its owner's token). It shares the namespace's tag because a
// registry write watches it in the transaction that writes the documents.
func (k Keys) DocumentLock(ns, id string) string { return k.namespace(ns) + ":lock:" + id }

// Vocabulary is <p>:{<ns>}:vocab, a hash of each document's term
// statistics: document id → entry JSON.
func (k Keys) Vocabulary(ns string) string { return k.namespace(ns) + ":vocab" }

// VocabularyTotals is <p>:{<ns>}:vocabdf, a hash of the namespace's
// totals: word → chunks holding it, plus marker fields. A script moves it
// with Vocabulary, hence the shared tag.
func (k Keys) VocabularyTotals(ns string) string { return k.namespace(ns) + ":vocabdf" }

// Generation is <p>:{<ns>}:gen, the namespace's own cache generation
// counter; with Epoch (same tag, so one MGET reads both from one slot) it
// makes the generation cache keys carry.
func (k Keys) Generation(ns string) string { return k.namespace(ns) + ":gen" }

// CachedResult is <p>:{<ns>[+<ns>…]}:cache:<generations>:<tool>:<digest>,
// a tool's cached result as JSON: namespaces are those searched,
// generations theirs joined by "+" in the same order, digest the sha256 of
// the canonical arguments. A key is only ever read alone, after the
// generations it embeds, so a result is never served once they move. For
// one namespace the tag is the namespace's, so a warm lookup's MGET of
// counters and result is one slot.
func (k Keys) CachedResult(namespaces []string, generations, tool, digest string) string {
	return k.Prefix() + ":{" + strings.Join(namespaces, "+") + "}:cache:" + generations + ":" + tool + ":" + digest
}

// EpochChannel is <p>:epochs, the Pub/Sub channel on which every move of
// a namespace's epoch is announced (the namespace as the message), so
// processes holding epochs in memory drop them.
func (k Keys) EpochChannel() string { return k.Prefix() + ":epochs" }

// Namespaces is <p>:namespaces, the set of namespaces that have held
// documents. It is written apart from any namespace's transaction.
func (k Keys) Namespaces() string { return k.Prefix() + ":namespaces" }

// WatchLease is <p>:watch:<hex of 16 bytes of sha256(namespace NUL path)>,
// the lease of the process watching a directory for a namespace (a lease
// holding its owner's token): the path would make a long key, and a
// digest keeps braces in a path from acting as a hash tag.
func (k Keys) WatchLease(namespace, path string) string {
	sum := sha256.Sum256([]byte(namespace + "\x00" + path))
	return k.Prefix() + ":watch:" + hex.EncodeToString(sum[:16])
}

// Session is <p>:session:<digest>, a browser session (its principal as
// JSON) for the session's TTL; digest is the hex sha256 of the session id,
// so Redis never holds the cookie itself.
func (k Keys) Session(digest string) string { return k.Prefix() + ":session:" + digest }

// Embedder is <p>:{embedder}:state, the live embedder and collection and
// the switch under way, as JSON (live.State). Its keys share one tag, so
// a transaction may watch the state and write the others.
func (k Keys) Embedder() string { return k.Prefix() + ":{embedder}:state" }

// EmbedderReplicas is <p>:{embedder}:replicas, a hash of each running
// ragd process's acknowledgement: replica id → the state generation it
// follows and when it said so.
func (k Keys) EmbedderReplicas() string { return k.Prefix() + ":{embedder}:replicas" }

// EmbedderDirty is <p>:{embedder}:dirty, the set of namespaces something
// was deleted from while a switch copied them.
func (k Keys) EmbedderDirty() string { return k.Prefix() + ":{embedder}:dirty" }

// Layout is <p>:keyspace, the version of the key layout the keys under the
// prefix follow (see Migrate).
func (k Keys) Layout() string { return k.Prefix() + ":keyspace" }

// Jobs names the job keys of one Asynq queue.
func (k Keys) Jobs(queue string) JobKeys {
	return JobKeys{base: k.Prefix() + ":jobs:{" + queue + "}:", queue: queue}
}

// JobKeys names ragd's keys of one job queue, <p>:jobs:{<queue>}:…, and
// the Asynq task records ragd reads directly. Every one carries the
// queue's hash tag, as Asynq's own keys of the queue do, so a script may
// touch a job's control record and its task together.
type JobKeys struct{ base, queue string }

// Match is a KEYS or SCAN pattern matching every ragd key of the queue
// (for a prefix holding no glob characters).
func (j JobKeys) Match() string { return j.base + "*" }

// Control is <p>:jobs:{<queue>}:ctl:<id>, a job's control record: a hash
// of status (cancelled or committing), job (a cancelled job's JSON),
// children (a cancelled directory's child refs) and stopped.
func (j JobKeys) Control(id string) string { return j.base + "ctl:" + id }

// Files is <p>:jobs:{<queue>}:files:<id>, the outcomes of directory job
// id's completed file jobs: a hash of file job id suffix → outcome (JSON).
func (j JobKeys) Files(id string) string { return j.base + "files:" + id }

// Text is <p>:jobs:{<queue>}:text:<id>, the text a document job was
// given inline, held outside its task (which Asynq keeps, payload and all,
// for the retention) until the job has ended.
func (j JobKeys) Text(id string) string { return j.base + "text:" + id }

// Cancelled is <p>:jobs:{<queue>}:cancelled, a sorted set of the cancelled
// top-level jobs by cancel time (ms).
func (j JobKeys) Cancelled() string { return j.base + "cancelled" }

// Index is <p>:jobs:{<queue>}:ns:<ns>, a sorted set of the namespace's
// top-level job ids by creation time (unix ms, its fraction the µs), for listing.
func (j JobKeys) Index(ns string) string { return j.base + "ns:" + ns }

// Namespaces is <p>:jobs:{<queue>}:namespaces, the set of namespaces with
// indexed jobs.
func (j JobKeys) Namespaces() string { return j.base + "namespaces" }

// Directories is <p>:jobs:{<queue>}:dirs, the set of indexed directory
// job ids.
func (j JobKeys) Directories() string { return j.base + "dirs" }

// Settled is <p>:jobs:{<queue>}:settled, a hash of the directory jobs
// whose files have all ended: job id → the job as listed (JSON).
func (j JobKeys) Settled() string { return j.base + "settled" }

// Viewers is <p>:jobs:{<queue>}:viewers, a hash of the indexed jobs'
// audiences: job id → the Key of the ragd.Audience of the principal that
// asked for it, which decides who may see the job.
func (j JobKeys) Viewers() string { return j.base + "viewers" }

// Counts is <p>:jobs:{<queue>}:counts, the queue's job counters (Stats):
// a hash of "<ns>\x1f<audience key>\x1f<bucket>" → how many top-level
// jobs of the namespace, asked for by that audience, are in the bucket
// (pending, active, failed, cancelled, completed).
func (j JobKeys) Counts() string { return j.base + "counts" }

// Counted is <p>:jobs:{<queue>}:counted, a hash of top-level job id →
// the Counts field it is counted in, so each move takes it from where it is.
func (j JobKeys) Counted() string { return j.base + "counted" }

// CountedAt is <p>:jobs:{<queue>}:counted-at, present (with a TTL) while
// the counters are trusted: it is set when they are recounted.
func (j JobKeys) CountedAt() string { return j.base + "counted-at" }

// Recount is <p>:jobs:{<queue>}:recount, the lease of the one process
// recounting the counters.
func (j JobKeys) Recount() string { return j.base + "recount" }

// Ended is <p>:jobs:{<queue>}:ended:<id>, directory job id's file jobs
// that have ended (a hash of file job id suffix → 1) and, under ".", how
// many files it fanned out.
func (j JobKeys) Ended(id string) string { return j.base + "ended:" + id }

// Backfilled is <p>:jobs:{<queue>}:backfilled, set (to the time) once the
// queue's tasks from before the index have been indexed.
func (j JobKeys) Backfilled() string { return j.base + "backfilled" }

// Replicated is <p>:jobs:{<queue>}:replicated, a counter written before a
// WAIT so the WAIT has a write of this connection to count replicas of.
func (j JobKeys) Replicated() string { return j.base + "replicated" }

// Completed is asynq:{<queue>}:completed, Asynq's sorted set of the
// completed tasks it keeps, by the time (unix s) each record expires.
func (j JobKeys) Completed() string { return "asynq:{" + j.queue + "}:completed" }

// Task is asynq:{<queue>}:t:<id>, the hash Asynq keeps a task in. It is
// Asynq's key, not under the prefix; ragd reads it directly to read many
// tasks in one round trip.
func (j JobKeys) Task(id string) string { return "asynq:{" + j.queue + "}:t:" + id }
