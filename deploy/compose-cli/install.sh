#!/usr/bin/env bash
# Builds Docker Compose v2 (the version this module pins) from its Go module
# and installs it as the docker CLI plugin, so `docker compose` works where
# the Docker packages ship without it (Debian's docker.io has no compose v2).
#
# Why this and not the alternatives: Debian's docker-compose package is the
# Python Compose 1.29, end of life, and it rejects deploy/compose.yaml (the
# top-level `name` of the Compose Specification is not in its schema);
# testcontainers-go's compose module would put Compose's large dependency
# tree into the service's own go.mod. A tool module keeps it apart. The
# first build takes minutes on two cores; the Go build cache and the check
# below make later runs take well under a second.
#
# The binary goes to bin/docker-cli-plugins/docker-compose (it also runs
# standalone) and is copied into $DOCKER_CONFIG/cli-plugins, by default
# ~/.docker/cli-plugins. It is rebuilt only when neither holds the pinned version.
set -euo pipefail
cd "$(dirname "$0")"
out="$(cd ../.. && pwd)/bin/docker-cli-plugins/docker-compose"
version=$(go list -m -f '{{.Version}}' github.com/docker/compose/v2)
plugins="${DOCKER_CONFIG:-$HOME/.docker}/cli-plugins"
if [ ! -x "$out" ] && [ -x "$plugins/docker-compose" ] && "$plugins/docker-compose" version --short 2>/dev/null | grep -qx "${version#v}"; then
	# Installed by an earlier run (a fresh clone has no bin/): take that one.
	mkdir -p "$(dirname "$out")"
	cp "$plugins/docker-compose" "$out"
fi
if [ -x "$out" ] && "$out" version --short 2>/dev/null | grep -qx "${version#v}"; then
	echo "images: docker compose $version is built (cached)"
else
	CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X github.com/docker/compose/v2/internal.Version=$version" \
		-o "$out" github.com/docker/compose/v2/cmd
fi
mkdir -p "$plugins"
install -m 0755 "$out" "$plugins/docker-compose"
echo "images: docker compose $version installed in $plugins"
