#!/usr/bin/env bash
# make fuzz: run every Go fuzz target (func FuzzXxx in a *_test.go) in turn
# with -fuzz for FUZZTIME each; `go test` fuzzes one target per package and
# invocation, so they run one after another. No services are needed. A
# failing input is kept under <package>/testdata/fuzz/FuzzXxx/ and the run
# stops there: fix the code, keep the file as the regression test.
#
#   FUZZTIME          time (or Nx executions) per target, default 10m
#   FUZZTIME_SANDBOX  for FuzzPDFSandbox (a process start per input), default FUZZTIME
#   FUZZ_TARGETS      regexp matched against "<dir> <FuzzName>", default all
#   FUZZ_PARALLEL     fuzzing workers per target, default 1
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FUZZTIME="${FUZZTIME:-10m}"
FUZZTIME_SANDBOX="${FUZZTIME_SANDBOX:-$FUZZTIME}"

cd "$ROOT"
# "dir target" lines, in a fixed order
mapfile -t targets < <(grep -rHoE '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' --include='*_test.go' . |
	sed -E 's#^\./(.*)/[^/]+:func (Fuzz[A-Za-z0-9_]+).*#\1 \2#' | sort |
	grep -E "${FUZZ_TARGETS:-.}" || true)
[[ ${#targets[@]} -gt 0 ]] || die "no fuzz targets match ${FUZZ_TARGETS:-.}"

for t in "${targets[@]}"; do
	read -r dir name <<<"$t"
	budget="$FUZZTIME"
	[[ $name == FuzzPDFSandbox ]] && budget="$FUZZTIME_SANDBOX"
	log "fuzz ./$dir $name for $budget"
	# Run in the package's directory: go test then streams its progress.
	# New interesting inputs are minimized briefly: with PDF seeds of tens of
	# KiB, the default minute each would stall the run.
	(cd "$dir" && go test -run '^$' -fuzz "^${name}\$" -fuzztime "$budget" -fuzzminimizetime 5s \
		-parallel "${FUZZ_PARALLEL:-1}" .)
done
log "fuzzed ${#targets[@]} targets"
