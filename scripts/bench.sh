#!/usr/bin/env bash
# make bench: the same services as `make test`, then the benchmarks.
#
#   RAGD_BENCH_PKGS  packages to benchmark (default ./...)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${RAGD_DATA_DIR:-$ROOT/data}"

install_test_services "$MODEL_DIR"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ragd-bench.XXXXXX")
remove_on_exit "$TMP"
start_test_stack "$TMP"

cd "$ROOT"
# The benchmarks that measure ragd as users run it start this binary
# (internal/testkit/ragdproc).
log "go build -o $TMP/ragd ./cmd/ragd"
go build -o "$TMP/ragd" ./cmd/ragd
export RAGD_BIN="$TMP/ragd"

log "go test -bench ${RAGD_BENCH_PKGS:-./...}"
# shellcheck disable=SC2086
go test -run '^$' -bench . -benchmem -count=1 ${RAGD_BENCH_PKGS:-./...}
