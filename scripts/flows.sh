#!/usr/bin/env bash
# make flows: the same services as `make test`, then the files and packages
# a REST search and a REST ingest execute (test/flows, built with -cover).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${RAGD_DATA_DIR:-$ROOT/data}"

install_test_services "$MODEL_DIR"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ragd-flows.XXXXXX")
remove_on_exit "$TMP"
start_test_stack "$TMP"

cd "$ROOT"
log "go build -tags flows -cover -covermode=atomic -coverpkg=ragd/... ./test/flows"
go build -tags flows -cover -covermode=atomic -coverpkg=ragd/... -o "$TMP/flows" ./test/flows
GOCOVERDIR="$TMP" "$TMP/flows"
