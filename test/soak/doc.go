// Package soak holds `make soak`: a real ragd process (`ragd serve
// --worker`) driven for SOAK_DURATION at SOAK_CONCURRENCY by a mix of
// ingests (uploads, inline text, re-ingests of changed files), REST
// searches, MCP tools/call, document deletes and job polling, while its
// RSS, goroutines, heap and open files are sampled. After the warm-up none
// of goroutines, RSS or open files may grow, and no request may fail.
//
// TestSoak runs only when scripts/soak.sh sets RAGD_SOAK_BIN; the verdict's
// own tests (growth_test.go) run with `make test`.
package soak
