#!/usr/bin/env bash
# make bench-growth: the same services as the tests, then BenchmarkGrowth,
# which ingests real documents into one namespace in steps and prints the
# ingest rate, search latency against raw Weaviate, ragd's RSS, Redis
# memory and Weaviate's disk at each step. A benchmark, never a test.
#
#   RAGD_GROWTH_STEPS  chunk counts of the steps (default 10000,100000,1000000)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${RAGD_DATA_DIR:-$ROOT/data}"

install_test_services "$MODEL_DIR"
export RAGD_GROWTH_STEPS="${RAGD_GROWTH_STEPS:-10000,100000,1000000}"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ragd-growth.XXXXXX")
remove_on_exit "$TMP"
start_test_stack "$TMP"

cd "$ROOT"
log "go test -bench BenchmarkGrowth (steps $RAGD_GROWTH_STEPS)"
go test -run '^$' -bench BenchmarkGrowth -benchtime 1x -count=1 -timeout 4h ./internal/jobs/worker
