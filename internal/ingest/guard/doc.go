// Package guard keeps what a request names inside what the server may
// read: Roots confines file paths to the configured ingest roots (symlinks
// included), OpenRegular refuses files that are not regular, and the
// Fetcher fetches URLs without letting a connection reach a loopback,
// private or otherwise non-public address. It imports no document parser,
// of ragd or of a library, so none of their code is linked into the
// checks; deps_test.go keeps it that way.
package guard
