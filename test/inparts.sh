#!/usr/bin/env bash
# Runs one package's tests as N processes at once:
#   test/inparts.sh N PKGDIR go test [flags...]
# The package's top-level tests (func TestX(t *testing.T) in PKGDIR's
# *_test.go) are dealt out in name order, one to each part in turn, so
# that the tests of one kind (TestBrowser..., TestSecurity...) spread over
# the parts; each part is the command with PKGDIR and -run '^(names)$'
# added. A -skip in the command still applies within each part. The parts'
# outputs are printed whole, one after the other, once all have finished;
# the exit status is non-zero when any part failed.
set -uo pipefail
if [ $# -lt 3 ]; then
	echo "usage: $0 N PKGDIR go test [flags...]" >&2
	exit 2
fi
parts=$1 dir=$2
shift 2
mapfile -t names < <(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' "$dir"/*_test.go | sort -u)
if [ ${#names[@]} -eq 0 ]; then
	echo "inparts: no tests in $dir" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pids=()
for ((p = 0; p < parts; p++)); do
	run=""
	for ((i = p; i < ${#names[@]}; i += parts)); do
		run+="${run:+|}${names[$i]}"
	done
	[ -n "$run" ] || continue
	"$@" -run "^($run)\$" "$dir" >"$tmp/$p" 2>&1 &
	pids+=($!)
done
status=0
for p in "${!pids[@]}"; do
	wait "${pids[$p]}" || status=1
done
for p in "${!pids[@]}"; do
	echo "inparts: part $((p + 1)) of $parts ($dir):"
	cat "$tmp/$p"
done
exit $status
