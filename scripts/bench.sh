#!/usr/bin/env bash
# make bench: the same services as `make test`, then the benchmarks.
#
#   RAGD_BENCH_PKGS  packages to benchmark (default ./...)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${RAGD_DATA_DIR:-$ROOT/data}"

install_redis
install_wordnet
install_ocr
install_weaviate
install_model "$MODEL_DIR"
export RAGD_TEST_GLOVE_PATH="$MODEL_DIR/$GLOVE_MODEL"
export RAGD_TEST_WORDNET_DIR=/usr/share/wordnet # where install_wordnet puts it

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ragd-bench.XXXXXX")
remove_on_exit "$TMP"
start_test_stack "$TMP"

cd "$ROOT"
log "go test -bench ${RAGD_BENCH_PKGS:-./...}"
# shellcheck disable=SC2086
go test -run '^$' -bench . -benchmem -count=1 ${RAGD_BENCH_PKGS:-./...}
