#!/usr/bin/env bash
# Builds the project's container images from local bases only, so it works
# on a machine whose Docker engine reaches no image registry (the project's
# machines and CI) as well as on one that does:
#
#   readinglibrary/debian:bookworm     debootstrap --variant=minbase + docker import (only when absent)
#   readinglibrary/libraryd:local      deploy/Dockerfile            (the service, FROM scratch)
#   readinglibrary/ferretdb:local      deploy/ferretdb/Dockerfile   (FerretDB 1.24 on SQLite, FROM scratch)
#   readinglibrary/oauth2-proxy:local  deploy/oauth2-proxy/Dockerfile (v7.8.1, FROM scratch)
#   readinglibrary/redis:local         deploy/redis/Dockerfile      (Debian's redis-server)
#
# Usage: deploy/images.sh [debian|libraryd|ferretdb|oauth2-proxy|redis|compose]...
# (no argument: all of them). Go binaries are built on the host, static
# (CGO off, -trimpath), where the Go build cache makes a rebuild fast; the
# Dockerfiles only copy them in. See deploy/README.md.
#
# Settings (environment):
#   DEBIAN_IMAGE   base of the Redis image; default readinglibrary/debian:bookworm,
#                  made here with debootstrap (needs root). With a registry,
#                  debian:bookworm-slim skips debootstrap.
#   RUNTIME_IMAGE  base of the service image; default scratch
#                  (gcr.io/distroless/static-debian12:nonroot also works).
#   DOCKER_HOST    the engine to build on.
set -euo pipefail
cd "$(dirname "$0")/.."

# The legacy builder: BuildKit needs the buildx plugin, which Debian's
# docker.io (20.10) lacks. Nothing here needs BuildKit.
export DOCKER_BUILDKIT=0
export CGO_ENABLED=0

DEBIAN_IMAGE="${DEBIAN_IMAGE:-readinglibrary/debian:bookworm}"
RUNTIME_IMAGE="${RUNTIME_IMAGE:-scratch}"
OAUTH2_PROXY_VERSION=v7.8.1
CA_BUNDLE="${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}"
STAGE="$PWD/bin/image"

log() { echo "images: $*"; }

# timed NAME CMD...: runs CMD and prints how long it took.
timed() {
	local name=$1 start
	shift
	start=$(date +%s%N)
	"$@"
	log "$name took $(( ($(date +%s%N) - start) / 1000000 )) ms"
}

build_image() { # TAG DOCKERFILE CONTEXT [--build-arg ...]
	local tag=$1 file=$2 ctx=$3
	shift 3
	docker build --quiet -f "$file" -t "$tag" "$@" "$ctx" >/dev/null
	log "$tag: $(docker image inspect -f '{{.Size}}' "$tag" | awk '{printf "%.1f MB", $1/1e6}')"
}

debian() {
	if docker image inspect "$DEBIAN_IMAGE" >/dev/null 2>&1; then
		log "$DEBIAN_IMAGE is present (cached)"
		return
	fi
	if [ "$DEBIAN_IMAGE" != readinglibrary/debian:bookworm ]; then
		log "$DEBIAN_IMAGE is missing: pull it (docker pull $DEBIAN_IMAGE) or unset DEBIAN_IMAGE" >&2
		return 1
	fi
	command -v debootstrap >/dev/null || { log "debootstrap is not installed (apt-get install debootstrap)" >&2; return 1; }
	local root
	root=$(mktemp -d /var/tmp/libraryd-debootstrap.XXXXXX)
	timed "debootstrap --variant=minbase bookworm" sh -c "debootstrap --variant=minbase bookworm '$root' >'$root.log' 2>&1 || { tail -20 '$root.log' >&2; exit 1; }"
	rm -f "$root.log"
	# Package lists and apt's caches are dead weight in a base image.
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/*
	timed "docker import" sh -c "tar -C '$root' -c . | docker import - '$DEBIAN_IMAGE' >/dev/null"
	rm -rf "$root"
	log "$DEBIAN_IMAGE: $(docker image inspect -f '{{.Size}}' "$DEBIAN_IMAGE" | awk '{printf "%.1f MB", $1/1e6}')"
}

# stage DIR: an empty build context with the CA bundle and empty data/ and
# tmp/ directories (scratch has no /tmp; uploads are spooled there).
stage() {
	rm -rf "$1"
	mkdir -p "$1/data" "$1/tmp"
	cp "$CA_BUNDLE" "$1/ca-certificates.crt"
}

libraryd() {
	stage "$STAGE"
	# -tags timetzdata embeds the time-zone database (scratch has none).
	timed "go build libraryd" go build -trimpath -tags timetzdata -ldflags "-s -w" -o "$STAGE/libraryd" ./cmd/libraryd
	timed "docker build readinglibrary/libraryd:local" build_image readinglibrary/libraryd:local deploy/Dockerfile . \
		--build-arg RUNTIME_IMAGE="$RUNTIME_IMAGE"
}

# ferretdb_source copies FerretDB 1.24 out of the module cache into
# bin/ferretdb-src with one expression changed, and writes a go.mod beside
# deploy/ferretdb's that builds from it (FERRETDB_MOD). FerretDB's SQLite
# backend looks a document up by _id (every update, every delete, every
# find by _id) with the expression _ferretdb_sjson->'$._id', while its own
# unique _id index is on _ferretdb_sjson->"_id". Both read the same value,
# but SQLite only uses an index whose expression is written the same way,
# so each lookup scanned the whole collection and an updateMany of n
# documents took time in n squared (1,000: 8.6 s, 4,000: 65 s on this
# project's machines). With the index's expression the lookup uses the
# index; what is stored and returned is unchanged.
ferretdb_source() {
	local mod src=$PWD/bin/ferretdb-src file
	mod=$(cd deploy/ferretdb && go mod download -json github.com/FerretDB/FerretDB | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -d "$mod" ] || { log "FerretDB's module was not downloaded" >&2; return 1; }
	rm -rf "$src"
	cp -r "$mod" "$src"
	chmod -R u+w "$src"
	file=$src/internal/backends/sqlite/metadata/metadata.go
	sed -i "s|IDColumn = DefaultColumn + \"->'\\\$._id'\"|IDColumn = DefaultColumn + \`->\"_id\"\`|" "$file"
	grep -q 'IDColumn = DefaultColumn + `->"_id"`' "$file" || { log "FerretDB's _id expression was not found in $file" >&2; return 1; }
	FERRETDB_MOD=$PWD/bin/ferretdb.mod
	cp deploy/ferretdb/go.mod "$FERRETDB_MOD"
	cp deploy/ferretdb/go.sum "${FERRETDB_MOD%.mod}.sum"
	(cd deploy/ferretdb && go mod edit -modfile="$FERRETDB_MOD" -replace "github.com/FerretDB/FerretDB=$src")
}

ferretdb() {
	local ctx="$PWD/bin/image-ferretdb"
	stage "$ctx"
	# /data/db, where MongoDB keeps its files: the compose file's volume
	# mounts there and takes this directory's owner.
	mkdir -p "$ctx/data/db"
	ferretdb_source
	timed "go build ferretdb" sh -c "cd deploy/ferretdb && go build -modfile='$FERRETDB_MOD' -trimpath -ldflags '-s -w' -o '$ctx/ferretdb' ."
	timed "docker build readinglibrary/ferretdb:local" build_image readinglibrary/ferretdb:local deploy/ferretdb/Dockerfile "$ctx"
}

oauth2_proxy() {
	local ctx="$PWD/bin/image-oauth2-proxy"
	stage "$ctx"
	timed "go build oauth2-proxy" sh -c "cd deploy/oauth2-proxy && go build -trimpath \
		-ldflags '-s -w -X github.com/oauth2-proxy/oauth2-proxy/v7/pkg/version.VERSION=$OAUTH2_PROXY_VERSION' \
		-o '$ctx/oauth2-proxy' github.com/oauth2-proxy/oauth2-proxy/v7"
	timed "docker build readinglibrary/oauth2-proxy:local" build_image readinglibrary/oauth2-proxy:local deploy/oauth2-proxy/Dockerfile "$ctx"
}

redis() {
	debian
	# --network host: apt-get reaches Debian's mirror as the host does,
	# whatever the engine's bridge and firewall setup.
	timed "docker build readinglibrary/redis:local" build_image readinglibrary/redis:local deploy/redis/Dockerfile deploy/redis \
		--network host --build-arg BASE="$DEBIAN_IMAGE"
}

compose() {
	timed "compose CLI plugin" deploy/compose-cli/install.sh
}

all=(debian libraryd ferretdb oauth2-proxy redis compose)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
start=$(date +%s%N)
for t in "${targets[@]}"; do
	case "$t" in
	debian | libraryd | ferretdb | redis | compose) "$t" ;;
	oauth2-proxy) oauth2_proxy ;;
	*) log "unknown target $t (want: ${all[*]})" >&2; exit 2 ;;
	esac
done
log "done in $(( ($(date +%s%N) - start) / 1000000 )) ms"
