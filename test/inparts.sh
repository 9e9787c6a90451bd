#!/usr/bin/env bash
# Runs one package's tests as N processes at once:
#   test/inparts.sh N PKGDIR go test [flags...]
# The package's top-level tests (func TestX(t *testing.T) in PKGDIR's
# *_test.go) are dealt out so that the parts take about as long: each test,
# slowest first, goes to the part with the least time so far, by the
# seconds PKGDIR/inparts.weights gives it ("TestName seconds" per line; a
# test not listed counts as 2 s). Each part is the command with PKGDIR and
# -run '^(names)$' added. A -skip in the command still applies within each
# part. The parts' outputs are printed whole, one after the other, once
# all have finished; the exit status is non-zero when any part failed.
#
# The weights are what the tests took in the container suites
# (inparts.weights) and in make test's race run (inparts.race.weights,
# passed as INPARTS_WEIGHTS). To measure them afresh, pass -json to the
# command and read the top-level tests' "Elapsed" from the output:
#   test/inparts.sh 3 ./test go test -count=1 -json ... > run.json
#   test/inparts.sh --weights run.json [more.json...] > test/inparts.weights
# Several runs (the embedded store's and MongoDB's) are added up.
set -uo pipefail
if [ "${1:-}" = --weights ]; then
	shift
	sed -n 's/.*"Action":"\(pass\|fail\|skip\)".*"Test":"\(Test[A-Za-z0-9_]*\)","Elapsed":\([0-9.]*\)}.*/\2 \3/p' "$@" |
		awk '{s[$1] += $2} END {for (t in s) printf "%s %.1f\n", t, s[t]}' | sort -k2,2nr -k1,1
	exit 0
fi
if [ $# -lt 3 ]; then
	echo "usage: $0 N PKGDIR go test [flags...]   or   $0 --weights RUN.json..." >&2
	exit 2
fi
parts=$1 dir=$2
shift 2
mapfile -t names < <(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' "$dir"/*_test.go | sort -u)
if [ ${#names[@]} -eq 0 ]; then
	echo "inparts: no tests in $dir" >&2
	exit 1
fi
weights=/dev/null
[ -f "$dir/inparts.weights" ] && weights="$dir/inparts.weights"
# INPARTS_WEIGHTS names another weights file, for a run whose tests take
# other times (the race detector's).
[ -n "${INPARTS_WEIGHTS:-}" ] && weights="$INPARTS_WEIGHTS"
# One line per part: the -run alternatives, slowest test first.
mapfile -t runs < <(printf '%s\n' "${names[@]}" | awk -v parts="$parts" -v wf="$weights" '
	BEGIN { while ((getline line < wf) > 0) { split(line, f, " "); w[f[1]] = f[2] } }
	{ n++; name[n] = $1; weight[n] = ($1 in w) ? w[$1] : 2 }
	END {
		# Slowest first (ties by name), each to the least loaded part.
		for (i = 1; i <= n; i++) order[i] = i
		for (i = 2; i <= n; i++) {
			j = i
			while (j > 1 && (weight[order[j-1]] < weight[order[j]] || (weight[order[j-1]] == weight[order[j]] && name[order[j-1]] > name[order[j]]))) {
				k = order[j]; order[j] = order[j-1]; order[j-1] = k; j--
			}
		}
		for (p = 0; p < parts; p++) load[p] = 0
		for (i = 1; i <= n; i++) {
			best = 0
			for (p = 1; p < parts; p++) if (load[p] < load[best]) best = p
			run[best] = run[best] (run[best] == "" ? "" : "|") name[order[i]]
			load[best] += weight[order[i]]
		}
		for (p = 0; p < parts; p++) if (run[p] != "") print run[p]
	}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pids=()
for p in "${!runs[@]}"; do
	"$@" -run "^(${runs[$p]})\$" "$dir" >"$tmp/$p" 2>&1 &
	pids+=($!)
done
status=0
for p in "${!pids[@]}"; do
	wait "${pids[$p]}" || status=1
done
for p in "${!pids[@]}"; do
	echo "inparts: part $((p + 1)) of ${#pids[@]} ($dir):"
	cat "$tmp/$p"
done
exit $status
