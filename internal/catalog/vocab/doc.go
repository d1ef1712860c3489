// Package vocab learns a namespace's vocabulary at ingest: for every
// document, the words of its chunks and in how many chunks each occurs. At
// query time the namespace's statistics (document frequencies, words grouped
// by stem) let retrieval add only words the namespace actually contains:
// the morphological variants of a query word ("serializer" → serialization),
// its nearest neighbours in the embedder's space, and the distinctive words
// of pseudo-relevant chunks, each weighted by how rare it is.
//
// Statistics are kept in Redis under the registry's key prefix, one hash per
// namespace with one field per document, so a document's new version
// replaces its old statistics. Entries of documents the registry no longer
// holds (deleted, or the namespace cleared) are dropped when the statistics
// are next loaded.
package vocab
