// Package guard keeps what a request names inside what the server may
// read: Roots confines file paths to the configured ingest roots (symlinks
// included), OpenRegular refuses files that are not regular, and the
// Fetcher fetches URLs without letting a connection reach a loopback,
// private or otherwise non-public address. It imports no document parser:
// its deps_test.go checks that none of them can reach into this code.
package guard
