#!/usr/bin/env bash
# Installs the tests' outside helpers by running every .ci/install-*.sh.
# A failing installer is reported loudly but does not stop the others: the
# tests that need its tool skip and say why (see .cache/deps-status).
set -u
cd "$(dirname "$0")/.."
mkdir -p .cache
: > .cache/deps-status
for s in .ci/install-*.sh; do
  [ -e "$s" ] || continue
  name=$(basename "$s" .sh); name=${name#install-}
  echo "== deps: $name"
  if bash "$s"; then
    echo "$name ok" >> .cache/deps-status
  else
    echo "!! deps: $name could not be installed; tests that need it will SKIP" >&2
    echo "$name failed" >> .cache/deps-status
  fi
done
exit 0
