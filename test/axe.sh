#!/usr/bin/env bash
# Installs axe-core, at the version test/axe/package-lock.json pins (with
# its integrity hash), into a cache for the browser tests' accessibility
# check, and prints the path of its axe.min.js:
#   test/axe.sh                    (make test and .ci/run call it)
# The cache is $LIBRARY_AXE_CACHE, or $XDG_CACHE_HOME/libraryd (default
# ~/.cache/libraryd), one directory per version (axe-core-4.14.1/), so a
# change of the pin installs beside the old one and an installed version
# costs nothing. The tests find the file there (or at $LIBRARY_TEST_AXE).
#
# Without npm it says so and exits 0, and the browser tests run without
# the check; with LIBRARY_TEST_BROWSER=required (CI) it exits 1, as the
# tests then fail without axe-core, as they do without Chromium.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
version=$(sed -n 's/^ *"axe-core": *"\([0-9][0-9.]*\)".*/\1/p' "$here/axe/package.json")
if [ -z "$version" ]; then
  echo "axe.sh: no axe-core version in $here/axe/package.json" >&2
  exit 1
fi
cache="${LIBRARY_AXE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/libraryd}"
dir="$cache/axe-core-$version"
file="$dir/node_modules/axe-core/axe.min.js"
if [ -s "$file" ]; then
  echo "$file"
  exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
  if [ "${LIBRARY_TEST_BROWSER:-}" = "required" ]; then
    echo "axe.sh: npm is not installed, so axe-core $version cannot be; LIBRARY_TEST_BROWSER=required" >&2
    exit 1
  fi
  echo "axe.sh: npm is not installed: the browser tests run without the axe-core accessibility check" >&2
  exit 0
fi
# npm ci installs exactly the lock file (and checks the package's
# integrity hash), in a directory of its own so that nothing half
# installed is ever taken for the version.
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.axe-core-$version.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp "$here/axe/package.json" "$here/axe/package-lock.json" "$tmp/"
echo "axe.sh: installing axe-core $version into $dir" >&2
( cd "$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2 )
if [ ! -s "$tmp/node_modules/axe-core/axe.min.js" ]; then
  echo "axe.sh: npm installed no node_modules/axe-core/axe.min.js" >&2
  exit 1
fi
rm -rf "$dir"
mv "$tmp" "$dir"
echo "$file"
