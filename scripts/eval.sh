#!/usr/bin/env bash
# make eval: the retrieval evaluation. Starts the same throwaway Redis and
# Weaviate as `make test`, builds bin/ragd and bin/evalsuite, writes five
# corpora from files on this machine into a temp dir (evalsuite build:
# standard-library package docs from GOROOT, READMEs of modules in the
# module cache, npm's own docs, manual pages rendered by man, the Markdown
# docs of grpc-go and the MCP Go SDK from the module cache), indexes each
# at three chunk sizes, and runs each corpus's question set
# (internal/eval/testdata/corpora/<corpus>.jsonl) once per configuration, restarting
# ragd with that configuration's settings. For every configuration it
# prints recall@1/5/10, MRR and recall within a token budget (matched
# chunk, with its neighbours, with its section) per corpus, split and kind,
# and the mean over corpora; at the end the comparison table and the rule's
# decisions (docs/RETRIEVAL.md). The development set over the stdlib corpus
# (internal/eval/testdata/devset.jsonl) is then run per search mode, as before.
#
#   RAGD_EVAL_CONFIGS  labels of the configurations to run (default all, see CONFIGS)
#   RAGD_EVAL_MODES    modes for the devset run (default "keyword hybrid vector"; "" skips it)
#   RAGD_EVAL_PORT     port of the ragd under test (default 28000)
#   RAGD_EVAL_RESULTS  JSONL file the records are appended to (default: a temp file)
#   extra arguments go to `ragd eval` (the devset run), e.g. --json
#   RAGD_EVAL_SETS     question sets for the devset run, space-separated (default: the
#                      dev set); a question's "queries" go as other phrasings
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODEL_DIR="${RAGD_DATA_DIR:-$ROOT/data}" # the model is shared with `make run`
EVAL_PORT="${RAGD_EVAL_PORT:-28000}"
EVAL_MODES="${RAGD_EVAL_MODES-keyword hybrid vector}"

# label | chunk tokens | search mode | settings (RAGD_SEARCH_* without the prefix)
# "plain" is stem and synonym expansion off; a row without them inherits
# ragd's defaults.
PLAIN="STEM_EXPANSION=false SYNONYM_EXPANSION=false KEYWORD_SYNONYM_EXPANSION=false"
CONFIGS=(
	"bm25|256|keyword|$PLAIN"
	"bm25+stem|256|keyword|SYNONYM_EXPANSION=false STEM_EXPANSION=true KEYWORD_SYNONYM_EXPANSION=false"
	"bm25+syn|256|keyword|STEM_EXPANSION=false SYNONYM_EXPANSION=true"
	"hybrid|256|hybrid|$PLAIN"
	"hybrid+stem|256|hybrid|SYNONYM_EXPANSION=false STEM_EXPANSION=true KEYWORD_SYNONYM_EXPANSION=false"
	"hybrid+syn|256|hybrid|STEM_EXPANSION=false SYNONYM_EXPANSION=true"
	"hybrid+stem+syn|256|hybrid|STEM_EXPANSION=true SYNONYM_EXPANSION=true"
	"hybrid+wordnbr|256|hybrid|$PLAIN NEIGHBOUR_EXPANSION=true"
	"hybrid-a0.1|256|hybrid|$PLAIN ALPHA=0.1"
	"hybrid-a0.2|256|hybrid|$PLAIN ALPHA=0.2"
	"hybrid-a0.4|256|hybrid|$PLAIN ALPHA=0.4"
	"hybrid-a0.5|256|hybrid|$PLAIN ALPHA=0.5"
	"bm25-c128|128|keyword|$PLAIN"
	"hybrid-c128|128|hybrid|$PLAIN"
	"bm25-c384|384|keyword|$PLAIN"
	"hybrid-c384|384|hybrid|$PLAIN"
	"bm25-c384+syn|384|keyword|STEM_EXPANSION=false SYNONYM_EXPANSION=true"
	"hybrid-c384+syn|384|hybrid|STEM_EXPANSION=false SYNONYM_EXPANSION=true"
	"hybrid-c384+stem+syn|384|hybrid|STEM_EXPANSION=true SYNONYM_EXPANSION=true"
	"hybrid-c384+wordnbr|384|hybrid|$PLAIN NEIGHBOUR_EXPANSION=true"
	"hybrid-c384-a0.4|384|hybrid|$PLAIN ALPHA=0.4"
	"hybrid-c384-a0.5|384|hybrid|$PLAIN ALPHA=0.5"
	"hybrid-c384-a0.6|384|hybrid|$PLAIN ALPHA=0.6"
	"hybrid-c384-ranked|384|hybrid|$PLAIN FUSION=ranked"
	"hybrid-c384+wordnbr-a0.4|384|hybrid|$PLAIN NEIGHBOUR_EXPANSION=true ALPHA=0.4"
	"bm25-c512|512|keyword|$PLAIN"
	"hybrid-c512|512|hybrid|$PLAIN"
)

install_redis
install_wordnet
install_man
install_weaviate
install_model "$MODEL_DIR"
MODEL_DIR=$(cd "$MODEL_DIR" && pwd)

ports_free "ragd (eval)" "$EVAL_PORT"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ragd-eval.XXXXXX")
remove_on_exit "$TMP"
start_test_stack "$TMP"
RESULTS="${RAGD_EVAL_RESULTS:-$TMP/results.jsonl}"

cd "$ROOT"
log "building bin/ragd and bin/evalsuite"
go build -o "$ROOT/bin/ragd" ./cmd/ragd
go build -o "$ROOT/bin/evalsuite" ./internal/eval/cmd/evalsuite
install_corpus_modules # the gomod and moddocs corpora read them from the module cache

CORPORA="$TMP/corpora"
"$ROOT/bin/evalsuite" build --out "$CORPORA"

URL="http://127.0.0.1:$EVAL_PORT"
RAGD_PID=
# start_ragd CHUNK_TOKENS SETTINGS...: ragd serve --worker with
# ingest.chunk_tokens and the given search settings.
start_ragd() {
	local chunk=$1
	shift
	local log_file="$TMP/ragd.log" env=() kv
	for kv in "$@"; do env+=("RAGD_SEARCH_$kv"); done
	(
		export RAGD_HTTP_ADDR="127.0.0.1:$EVAL_PORT"
		export RAGD_REDIS_URL="$RAGD_TEST_REDIS_URL"
		export RAGD_WEAVIATE_URL="$RAGD_TEST_WEAVIATE_URL"
		export RAGD_WEAVIATE_GRPC_ADDR="$RAGD_TEST_WEAVIATE_GRPC_ADDR"
		export RAGD_INGEST_ROOTS="$CORPORA"
		export RAGD_INGEST_CHUNK_TOKENS="$chunk"
		export RAGD_EMBED_MODEL_PATH="$MODEL_DIR/$GLOVE_MODEL"
		export RAGD_DATA_DIR="$MODEL_DIR"
		exec env "${env[@]}" "$ROOT/bin/ragd" serve --worker
	) >>"$log_file" 2>&1 &
	RAGD_PID=$!
	# stop_started (the EXIT trap) stops it too if anything below fails.
	remember "$RAGD_PID" "ragd on :$EVAL_PORT" "$ROOT/bin/ragd"
	ragd_healthy() { [[ $(http_status "$EVAL_PORT" /health) == 200 ]]; }
	wait_for "ragd on :$EVAL_PORT" "$RAGD_PID" "$log_file" $((SECONDS + READY_TIMEOUT)) ragd_healthy
}
stop_ragd() {
	kill -TERM "$RAGD_PID" 2>/dev/null || true
	wait "$RAGD_PID" 2>/dev/null || true
}

wanted() { [[ -z ${RAGD_EVAL_CONFIGS:-} || " $RAGD_EVAL_CONFIGS " == *" $1 "* ]]; }

# Index each chunk size some wanted configuration uses, once.
declare -A INDEXED=()
for row in "${CONFIGS[@]}"; do
	IFS='|' read -r label chunk _ _ <<<"$row"
	wanted "$label" || continue
	[[ -n ${INDEXED[$chunk]:-} ]] && continue
	log "indexing the corpora at chunk_tokens $chunk"
	start_ragd "$chunk"
	"$ROOT/bin/evalsuite" index --url "$URL" --prefix "c$chunk" --dir "$CORPORA"
	stop_ragd
	INDEXED[$chunk]=1
done

for row in "${CONFIGS[@]}"; do
	IFS='|' read -r label chunk mode settings <<<"$row"
	wanted "$label" || continue
	log "eval: $label (chunk_tokens $chunk, mode $mode, $settings)"
	# shellcheck disable=SC2086 # settings is a list of words
	start_ragd "$chunk" $settings
	"$ROOT/bin/evalsuite" run --url "$URL" --prefix "c$chunk" --dir "$CORPORA" \
		--label "$label" --mode "$mode" --results "$RESULTS"
	stop_ragd
done
"$ROOT/bin/evalsuite" table --results "$RESULTS"

if [[ -n $EVAL_MODES ]]; then
	# The development set, over the stdlib corpus at 256 tokens, with ragd's defaults.
	start_ragd 256
	for mode in $EVAL_MODES; do
		for set in ${RAGD_EVAL_SETS:-internal/eval/testdata/devset.jsonl}; do
			log "eval (devset): mode $mode, set $set"
			"$ROOT/bin/ragd" eval --url "$URL" --kb_name c256-stdlib --mode "$mode" --set "$set" "$@"
			echo
		done
	done
	stop_ragd
fi
