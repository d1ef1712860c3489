#!/usr/bin/env bash
# bm25-weaviate.sh BIN HTTP_PORT GRPC_PORT BASE_PORT SEARCHABLE DIR: starts a
# throwaway single-node Weaviate for the BM25 experiment (go run
# ./internal/testkit/bm25exp; docs/PERFORMANCE.md) and prints its pid. SEARCHABLE is
# USE_INVERTED_SEARCHABLE: true is BlockMax WAND, false the classic
# inverted index ragd runs on (see scripts/lib.sh). Ports BASE+1..BASE+4 are its
# gossip, data, raft and raft-RPC ports.
set -euo pipefail
BIN=$1 HTTP=$2 GRPC=$3 BASE=$4 SEARCHABLE=$5 DIR=$6
mkdir -p "$DIR"
( export PERSISTENCE_DATA_PATH=$DIR AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true DEFAULT_VECTORIZER_MODULE=none ENABLE_MODULES= \
  DISABLE_TELEMETRY=true CLUSTER_HOSTNAME=node1 CLUSTER_ADVERTISE_ADDR=127.0.0.1 CLUSTER_BIND_ADDR=127.0.0.1 \
  CLUSTER_GOSSIP_BIND_PORT=$((BASE+1)) CLUSTER_DATA_BIND_PORT=$((BASE+2)) RAFT_PORT=$((BASE+3)) RAFT_INTERNAL_RPC_PORT=$((BASE+4)) \
  RAFT_BOOTSTRAP_EXPECT=1 GRPC_PORT=$GRPC USE_INVERTED_SEARCHABLE=$SEARCHABLE QUERY_DEFAULTS_LIMIT=25 LOG_LEVEL=warning \
  PROMETHEUS_MONITORING_ENABLED=false GO_PROFILING_DISABLE=true DISABLE_LAZY_LOAD_SHARDS=true
  exec setsid "$BIN" --host 127.0.0.1 --port "$HTTP" --scheme http ) >"$DIR/log" 2>&1 &
echo $!
