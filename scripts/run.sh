#!/usr/bin/env bash
# make run: install what is missing, start Redis and Weaviate with data under
# $RAGD_DATA_DIR (default ./data), then `ragd serve --worker` in the foreground.
# Services already answering on the ports are reused and left running;
# the ones started here stop when ragd exits. A TERM (as make passes on:
# `kill -TERM` of make) or INT (Ctrl-C) stops ragd, then them, and the
# script exits 0.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DATA_DIR="${RAGD_DATA_DIR:-$ROOT/data}"
mkdir -p "$DATA_DIR"
DATA_DIR=$(cd "$DATA_DIR" && pwd)
REDIS_PORT="${RAGD_REDIS_PORT:-6379}"
WEAVIATE_HTTP_PORT="${RAGD_WEAVIATE_HTTP_PORT:-8080}"
WEAVIATE_GRPC_PORT="${RAGD_WEAVIATE_GRPC_PORT:-50051}"
WEAVIATE_RAFT_PORT="${RAGD_WEAVIATE_RAFT_PORT:-8300}"
WEAVIATE_RAFT_RPC_PORT="${RAGD_WEAVIATE_RAFT_RPC_PORT:-8301}"
WEAVIATE_GOSSIP_PORT="${RAGD_WEAVIATE_GOSSIP_PORT:-7946}"
WEAVIATE_DATA_PORT="${RAGD_WEAVIATE_DATA_PORT:-7947}"

install_redis
install_wordnet
install_ocr
install_weaviate
install_model "$DATA_DIR"

# stop_ragd SIG: pass SIG on to ragd, wait for it to stop, and exit 0: a
# stop asked for is a clean one (make prints no error), unless ragd failed.
# The EXIT trap then stops the services.
# shellcheck disable=SC2317 # run by the TERM and INT traps below
stop_ragd() {
	trap '' INT TERM
	log "stopping ragd (pid $RAGD_PID, SIG$1)"
	kill -"$1" "$RAGD_PID" 2>/dev/null || true
	local rc=0
	wait "$RAGD_PID" || rc=$?
	case $rc in
	0 | 130 | 143) exit 0 ;; # stopped, or killed by the signal itself
	*) exit "$rc" ;;
	esac
}

# A TERM or INT before ragd runs stops what has started; that is a clean
# stop too.
trap 'exit 0' INT TERM

REUSE_RUNNING=1
start_redis "$REDIS_PORT" "$DATA_DIR/redis"
start_weaviate "$WEAVIATE_HTTP_PORT" "$WEAVIATE_GRPC_PORT" "$DATA_DIR/weaviate"
wait_ready

log "building bin/ragd"
(cd "$ROOT" && go build -o "$ROOT/bin/ragd" ./cmd/ragd)

export RAGD_DATA_DIR="$DATA_DIR"
export RAGD_REDIS_URL="${RAGD_REDIS_URL:-redis://127.0.0.1:$REDIS_PORT/0}"
export RAGD_WEAVIATE_URL="${RAGD_WEAVIATE_URL:-http://127.0.0.1:$WEAVIATE_HTTP_PORT}"
export RAGD_WEAVIATE_GRPC_ADDR="${RAGD_WEAVIATE_GRPC_ADDR:-127.0.0.1:$WEAVIATE_GRPC_PORT}"

# Not exec: when ragd exits, the EXIT trap stops the services started
# above. In the background, so that a TERM (make passes one on to this
# script, not to ragd) or an INT (Ctrl-C) is handled at once, not once ragd
# has exited: stop_ragd passes it on.
log "starting ragd serve --worker $*"
"$ROOT/bin/ragd" serve --worker "$@" &
RAGD_PID=$!
trap 'stop_ragd TERM' TERM
trap 'stop_ragd INT' INT
rc=0
wait "$RAGD_PID" || rc=$?
exit "$rc"
