#!/bin/sh
# ready.sh BINARY... — time from exec to the first 200 of GET /readyz, on a
# fresh data directory and then again on the data that first start made,
# 5 rounds with the binaries alternating so that each sees the same machine.
# Each binary runs its embedded default store with demo data.
set -eu
port=18931
round() { # binary datadir
	LIBRARY_ADDR=127.0.0.1:$port LIBRARY_DATA_DIR=$2 LIBRARY_DEMO_DATA=true \
		LIBRARY_ISSUER_URL=http://127.0.0.1:$port "$1" >/dev/null 2>&1 &
	pid=$!
	start=$(date +%s%N)
	until curl -fs -o /dev/null http://127.0.0.1:$port/readyz; do sleep 0.005; done
	end=$(date +%s%N)
	kill $pid; wait $pid 2>/dev/null || true
	echo $(((end - start) / 1000000))
}
for i in 1 2 3 4 5; do
	for bin in "$@"; do
		d=$(mktemp -d)
		fresh=$(round "$bin" "$d")
		again=$(round "$bin" "$d")
		echo "$bin fresh ${fresh}ms existing ${again}ms"
		rm -rf "$d"
	done
done
