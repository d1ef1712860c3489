#!/usr/bin/env bash
# make eval: the retrieval evaluation. Starts the same throwaway Redis and
# Weaviate as `make test`, builds bin/ragd, writes the corpus (the package
# documentation of ~40 standard-library packages, from this machine's
# GOROOT) into a temp dir, runs `ragd serve --worker` on it, indexes it into
# kb_name "eval" and runs the question set once per search mode, printing
# recall@1/5/10, MRR and the misses for each.
#
#   RAGD_EVAL_MODES  modes to evaluate (default "keyword hybrid vector")
#   RAGD_EVAL_PORT   port of the ragd under test (default 28000)
#   RAGD_EVAL_SETS   question sets to run, space-separated (default: the
#                    dev set); a question's "queries" go as other phrasings
#   extra arguments go to `ragd eval`, e.g. --set FILE, --json, --concurrency N
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${RAGD_DATA_DIR:-$ROOT/data}" # the model is shared with `make run`
EVAL_PORT="${RAGD_EVAL_PORT:-28000}"
EVAL_MODES="${RAGD_EVAL_MODES:-keyword hybrid vector}"

install_redis
install_wordnet
install_weaviate
install_model "$MODEL_DIR"
MODEL_DIR=$(cd "$MODEL_DIR" && pwd)

ports_free "ragd (eval)" "$EVAL_PORT"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ragd-eval.XXXXXX")
remove_on_exit "$TMP"
start_test_stack "$TMP"

cd "$ROOT"
log "building bin/ragd"
go build -o "$ROOT/bin/ragd" ./cmd/ragd

CORPUS="$TMP/corpus"
"$ROOT/bin/ragd" eval corpus --out "$CORPUS"

RAGD_LOG="$TMP/ragd.log"
log "ragd: starting on 127.0.0.1:$EVAL_PORT (log $RAGD_LOG)"
(
	export RAGD_HTTP_ADDR="127.0.0.1:$EVAL_PORT"
	export RAGD_REDIS_URL="$RAGD_TEST_REDIS_URL"
	export RAGD_WEAVIATE_URL="$RAGD_TEST_WEAVIATE_URL"
	export RAGD_WEAVIATE_GRPC_ADDR="$RAGD_TEST_WEAVIATE_GRPC_ADDR"
	export RAGD_INGEST_ROOTS="$CORPUS"
	export RAGD_EMBED_MODEL_PATH="$MODEL_DIR/$GLOVE_MODEL"
	export RAGD_DATA_DIR="$MODEL_DIR"
	exec "$ROOT/bin/ragd" serve --worker
) >>"$RAGD_LOG" 2>&1 &
RAGD_PID=$!
# stop_started (the EXIT trap) stops it too if anything below fails.
remember "$RAGD_PID" "ragd on :$EVAL_PORT" "$ROOT/bin/ragd"

ragd_healthy() { [[ $(http_status "$EVAL_PORT" /health) == 200 ]]; }
wait_for "ragd on :$EVAL_PORT" "$RAGD_PID" "$RAGD_LOG" $((SECONDS + READY_TIMEOUT)) ragd_healthy

URL="http://127.0.0.1:$EVAL_PORT"
log "indexing $CORPUS into kb_name eval"
"$ROOT/bin/ragd" eval index --url "$URL" --kb_name eval --dir "$CORPUS"

for mode in $EVAL_MODES; do
	for set in ${RAGD_EVAL_SETS:-eval/testdata/devset.jsonl}; do
		log "eval: mode $mode, set $set"
		"$ROOT/bin/ragd" eval --url "$URL" --kb_name eval --mode "$mode" --set "$set" "$@"
		echo
	done
done

# Stop ragd before the services it uses (the EXIT trap stops those).
log "stopping ragd (pid $RAGD_PID)"
kill -TERM "$RAGD_PID" 2>/dev/null || true
wait "$RAGD_PID" 2>/dev/null || true
