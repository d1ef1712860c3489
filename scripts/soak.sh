#!/usr/bin/env bash
# make soak: the same services as the tests, a freshly built ragd
# (`ragd serve --worker`, a real process), and TestSoak driving it for
# SOAK_DURATION with a mix of ingests, searches, MCP calls, deletes and job
# polling; it prints ragd's RSS, heap, goroutines and open files every
# sample, and fails on any error or on growth after the warm-up. Not CI.
#
#   SOAK_DURATION     how long the load runs (default 10m)
#   SOAK_CONCURRENCY  concurrent clients (default 8)
#   SOAK_WARMUP       not judged (default 2m; a fifth of shorter runs)
#   SOAK_INTERVAL     between samples (default 10s; 5s for runs under 5m)
#   RAGD_SOAK_ADDR    where ragd listens (default 127.0.0.1:28200)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${RAGD_DATA_DIR:-$ROOT/data}"

install_test_services "$MODEL_DIR"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ragd-soak.XXXXXX")
remove_on_exit "$TMP"

cd "$ROOT"
log "go build -o $TMP/ragd ./cmd/ragd"
go build -o "$TMP/ragd" ./cmd/ragd
export RAGD_SOAK_BIN="$TMP/ragd" RAGD_BIN="$TMP/ragd"
port=${RAGD_SOAK_ADDR:-127.0.0.1:28200}
ports_free ragd "${port##*:}"

start_test_stack "$TMP"

log "soak: ${SOAK_DURATION:-10m} at concurrency ${SOAK_CONCURRENCY:-8}"
# -timeout: the run plus start-up and a margin; go test's own default (10m)
# would end the default soak.
go test -run '^TestSoak$' -count=1 -v -timeout 4h ./test/soak
