#!/usr/bin/env bash
# make test: install what is missing, start a fresh Redis and Weaviate on the
# test ports with data in a throwaway dir, then go vet and the whole test suite.
# It first fails if `go mod tidy` would change go.mod or go.sum.
#
#   RAGD_TEST_PKGS   packages to test (default ./...)
#   RAGD_TEST_FLAGS  extra `go test` flags, e.g. "-run TestSearch -v"
#   RAGD_TEST_FUZZTIME          -fuzztime of each fuzz target (default 10s; 0 skips the step)
#   RAGD_TEST_FUZZTIME_SANDBOX  of FuzzPDFSandbox, a process an input (default 10s)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${RAGD_DATA_DIR:-$ROOT/data}" # the model is shared with `make run`

# Checked first, so an untidy go.mod fails before any service is installed.
log "go mod tidy -diff"
if ! (cd "$ROOT" && go mod tidy -diff); then
	die "go.mod/go.sum are not tidy (diff or error above): run \`go mod tidy\` and commit both files"
fi

install_redis
install_redis_sentinel # the Redis failover test (test/failover) starts its own sentinels
install_wordnet
install_ocr
install_chromium # the web-console tests drive it headless
install_weaviate
install_model "$MODEL_DIR"
install_corpus_modules # the eval tests and the access benchmark read them
install_mcpclient # test/mcpclient runs the MCP TypeScript SDK against ragd
install_oidc_provider # the sign-in tests sign in at a real OpenID Connect provider
export RAGD_TEST_GLOVE_PATH="$MODEL_DIR/$GLOVE_MODEL"
export RAGD_TEST_WORDNET_DIR=/usr/share/wordnet # where install_wordnet puts it
RAGD_TEST_CHROMIUM=$(command -v chromium)
export RAGD_TEST_CHROMIUM

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ragd-test.XXXXXX")
remove_on_exit "$TMP"
start_test_stack "$TMP"
# The chaos tests' figures (test/failover), printed after the run.
export RAGD_TEST_REPORT="$TMP/report.txt"

cd "$ROOT"
log "go vet ./..."
go vet ./...

log "go test -race ${RAGD_TEST_FLAGS:-} ${RAGD_TEST_PKGS:-./...}"
# Word splitting of the two variables is intended.
# shellcheck disable=SC2086
go test -race -count=1 -timeout 30m ${RAGD_TEST_FLAGS:-} ${RAGD_TEST_PKGS:-./...}
if [[ -s $RAGD_TEST_REPORT ]]; then
	log "figures of the chaos tests"
	cat "$RAGD_TEST_REPORT" >&2
fi

# Every fuzz target briefly (seed corpus first, then new inputs): a panic,
# a hang or a broken invariant fails here, and the input is kept under
# testdata/fuzz. `make fuzz` runs them for longer. The PDF parse is fuzzed
# the way production runs it, through the sandbox child (FuzzPDFSandbox):
# in-process (FuzzParsePDF, whose corpus `go test` above replays) the PDF
# library's resolve recursion kills the fuzzing process within seconds
# (four times in one 10 s run here), which only `make fuzz` sets aside.
if [[ ${RAGD_TEST_FUZZTIME:-10s} != 0 ]]; then
	log "fuzz each target for ${RAGD_TEST_FUZZTIME:-10s}"
	FUZZTIME="${RAGD_TEST_FUZZTIME:-10s}" FUZZTIME_SANDBOX="${RAGD_TEST_FUZZTIME_SANDBOX:-10s}" \
		FUZZ_EXCLUDE='^internal/ingest/pdftext FuzzParsePDF$' "$ROOT/scripts/fuzz.sh"
fi
