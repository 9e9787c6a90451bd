#!/usr/bin/env bash
# Runs every Go fuzz target of the module for a bounded time each:
#   test/fuzz.sh [FUZZTIME]      (default 60s; .ci/run passes 10s)
# Targets are found in the sources (func FuzzX(f *testing.F) in *_test.go),
# so a new target is fuzzed without being listed anywhere. A failure keeps
# going through the other targets and the script exits non-zero at the
# end; the input that failed is written under the package's
# testdata/fuzz/FuzzX/ by the test binary, to be committed as a regression
# case.
#
# Each package's instrumented test binary is built once (go test -c
# -fuzz), two packages at a time so that one's link overlaps the other's
# compile, and then run once per target from the package's directory, as
# go test -fuzz would run it: go test -fuzz built and linked the package
# again for every target, which was a third of a 10 s run.
#
# Inputs are not minimised (-fuzzminimizetime 0s): minimising each new
# input took most of a short run on the MARC decoders, leaving few
# executions for the search itself.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fuzztime="${1:-60s}"
GO="${GO:-go}"
failed=()
count=0
start=$(date +%s)
bins=$(mktemp -d)
trap 'rm -rf "$bins"' EXIT
cachedir="$("$GO" env GOCACHE)/fuzz"

mapfile -t files < <(git ls-files '*_test.go' | xargs grep -l '^func Fuzz[A-Za-z0-9_]*(f \*testing\.F)' | sort)
mapfile -t dirs < <(printf '%s\n' "${files[@]}" | xargs -n1 dirname | sort -u)

# The binaries, named by the package's directory with / as _.
build_start=$(date +%s)
if ! printf '%s\n' "${dirs[@]}" | xargs -P 2 -I{} sh -c \
	'"$1" test -c -fuzz . -o "$2/$(echo "$3" | tr / _).test" "./$3" >"$2/$(echo "$3" | tr / _).build.log" 2>&1 || { echo "fuzz: FAIL building ./$3"; cat "$2/$(echo "$3" | tr / _).build.log"; exit 255; }' \
	_ "$GO" "$bins" {}; then
	echo "fuzz: a package's fuzz binary did not build" >&2
	exit 1
fi
echo "fuzz: built ${#dirs[@]} packages' fuzz binaries in $(( $(date +%s) - build_start )) s"

# deadline_report_only LOG TARGET: whether the run's only failure is the
# coordinator's bare "context deadline exceeded": no input written, no
# panic, no worker that died, nothing else printed after the FAIL line.
deadline_report_only() {
	local log=$1 target=$2
	grep -q 'Failing input written\|panic:\|fuzzing process hung or terminated' "$log" && return 1
	[ "$(sed -n "/^--- FAIL: ${target} (/,\$p" "$log" | sed '1d' | sed 's/^[[:space:]]*//' | grep -v '^$')" = "context deadline exceeded
FAIL" ]
}

for file in "${files[@]}"; do
	dir=$(dirname "$file")
	bin="$bins/$(echo "$dir" | tr / _).test"
	importpath=$("$GO" list -f '{{.ImportPath}}' "./$dir")
	for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(f \*testing\.F).*/\1/p' "$file"); do
		count=$((count + 1))
		t0=$(date +%s)
		log="$bins/$target.log"
		# The flags go test -fuzz gives the binary, the cache directory
		# included: the corpus the coordinator has built up lives there.
		fuzz_once() {
			(cd "$root/$dir" && "$bin" -test.run '^$' -test.fuzz "^${target}\$" -test.fuzztime "$fuzztime" \
				-test.fuzzminimizetime 0s -test.fuzzcachedir "$cachedir/$importpath" -test.paniconexit0 -test.timeout 10m) >"$log" 2>&1
		}
		ok=false
		if fuzz_once; then
			ok=true
		elif deadline_report_only "$log" "$target"; then
			# Go 1.26's coordinator can report the end of its own -fuzztime
			# as a failure: it compares the deadline's error with its
			# workers' context before that context has been cancelled
			# (go.dev/issue/75804; Go 1.27 treats it as a normal end). The
			# run searched for its whole time and wrote no failing input,
			# so it passed; running it again only met the same race.
			echo "fuzz: ./$dir $target: the coordinator reported its own deadline, with no failing input (go.dev/issue/75804)"
			ok=true
		fi
		if $ok; then
			echo "fuzz: ok   ./$dir $target ($(( $(date +%s) - t0 )) s)"
		else
			echo "fuzz: FAIL ./$dir $target"
			sed 's/^/    /' "$log" | tail -n 40
			failed+=("./$dir $target")
		fi
	done
done
echo "fuzz: $count targets, ${fuzztime} each, $(( $(date +%s) - start )) s"
if [ ${#failed[@]} -gt 0 ]; then
	printf 'fuzz: failed: %s\n' "${failed[@]}" >&2
	exit 1
fi
