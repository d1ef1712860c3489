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
#   FUZZ_EXCLUDE      regexp of the same lines to leave out, default none
#   FUZZ_PDF_TRIAGES  how many FuzzParsePDF inputs of the known stack-overflow
#                     class (pdf_recursion below) one run may set aside, default 20
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
	grep -E "${FUZZ_TARGETS:-.}" | grep -vE "${FUZZ_EXCLUDE:-^\$}" || true)
[[ ${#targets[@]} -gt 0 ]] || die "no fuzz targets match ${FUZZ_TARGETS:-.}"

# pdf_recursion FILE: whether the input FILE (a failing FuzzParsePDF input)
# kills the in-process parse the known way: the PDF library's resolve
# recursing until the stack overflows. No recover can catch that, so the
# fuzzing process dies of it; production parses PDFs in the sandbox child,
# which dies at its stack cap and is reported as a parse error
# (TestPDFResolveRecursionIsParseError). Such an input moves to
# FuzzPDFSandbox's corpus, where it must pass, and fuzzing goes on.
pdf_recursion() {
	local out
	out="$(go test -run "^FuzzParsePDF\$/^$(basename "$1")\$" . 2>&1 || true)"
	grep -q 'fatal error: stack overflow' <<<"$out" && grep -q 'ledongthuc/pdf.(\*Reader).resolve' <<<"$out"
}

# fuzz_target DIR NAME BUDGET: one target; a FuzzParsePDF input of the
# known stack-overflow class is triaged (pdf_recursion) and the target
# fuzzed again, up to FUZZ_PDF_TRIAGES times, so that class cannot fail a
# run on its own while any other failure does.
fuzz_target() {
	local dir=$1 name=$2 budget=$3 try new rc tries=$((${FUZZ_PDF_TRIAGES:-20} + 1)) stalls=0
	for ((try = 1; try <= tries; try++)); do
		# Run in the package's directory: go test then streams its progress.
		# New interesting inputs are minimized briefly: with PDF seeds of
		# tens of KiB, the default minute each would stall the run.
		rc=0
		(cd "$dir" && go test -run '^$' -fuzz "^${name}\$" -fuzztime "$budget" -fuzzminimizetime 5s \
			-parallel "${FUZZ_PARALLEL:-1}" .) 2>&1 | tee "$FUZZ_OUT" || rc=$?
		((rc == 0)) && return 0
		# Go's fuzzing ends with a bare "context deadline exceeded" and no
		# input when its budget runs out while a worker is still on a slow
		# input (CI: FuzzDOCX at 0-7 execs/s): nothing failed, so once more.
		if grep -qx $'\tcontext deadline exceeded\\|    context deadline exceeded' "$FUZZ_OUT" &&
			! grep -q 'Failing input written' "$FUZZ_OUT" && ((stalls++ < 1)); then
			log "$name: the fuzzing ended on its deadline mid-input, with no failing input; once more"
			continue
		fi
		[[ $name == FuzzParsePDF && $try -lt $tries ]] || return 1
		new="$(cd "$dir" && git ls-files --others --exclude-standard -- testdata/fuzz/FuzzParsePDF)"
		[[ $(wc -w <<<"$new") -eq 1 ]] || return 1
		(cd "$dir" && pdf_recursion "$new") || return 1
		log "$new: the PDF library's resolve recursion (a stack overflow the sandbox catches); moved to FuzzPDFSandbox's corpus"
		(cd "$dir" && mkdir -p testdata/fuzz/FuzzPDFSandbox && mv "$new" testdata/fuzz/FuzzPDFSandbox/ &&
			go test -run "^FuzzPDFSandbox\$/^$(basename "$new")\$" .) || return 1
	done
}

# What the last target printed, for fuzz_target to tell a stall from a failure.
FUZZ_OUT="$(mktemp)"
remove_on_exit "$FUZZ_OUT"

for t in "${targets[@]}"; do
	read -r dir name <<<"$t"
	budget="$FUZZTIME"
	[[ $name == FuzzPDFSandbox ]] && budget="$FUZZTIME_SANDBOX"
	log "fuzz ./$dir $name for $budget"
	fuzz_target "$dir" "$name" "$budget"
done
log "fuzzed ${#targets[@]} targets"
