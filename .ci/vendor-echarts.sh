#!/usr/bin/env bash
# Refreshes templates/assets/echarts.min.js (and its LICENSE/NOTICE) from
# npm's echarts package at the pinned version, and checks the sha256 of the
# minified file so that a changed upstream tarball is noticed.
#   .ci/vendor-echarts.sh          refresh and verify
#   .ci/vendor-echarts.sh --check  only verify the committed copy
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=5.6.0
SHA256=bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1
dest=templates/assets
check() {
  got=$(sha256sum "$dest/echarts.min.js" | cut -d' ' -f1)
  if [ "$got" != "$SHA256" ]; then
    echo "vendor-echarts: $dest/echarts.min.js sha256 $got, want $SHA256 (echarts@$VERSION)" >&2
    exit 1
  fi
  echo "vendor-echarts: echarts@$VERSION ok ($SHA256)"
}
if [ "${1:-}" = "--check" ]; then check; exit 0; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "echarts@$VERSION" >/dev/null && tar xzf "echarts-$VERSION.tgz" package/dist/echarts.min.js package/LICENSE package/NOTICE)
mkdir -p "$dest"
cp "$tmp/package/dist/echarts.min.js" "$dest/echarts.min.js"
cp "$tmp/package/LICENSE" "$dest/echarts.LICENSE"
cp "$tmp/package/NOTICE" "$dest/echarts.NOTICE"
check
