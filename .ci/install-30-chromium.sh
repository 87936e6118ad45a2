#!/usr/bin/env bash
# Installs a headless Chromium for the site's browser tests (render's
# TestBrowser). Idempotent: returns at once when one is already on PATH.
# Prefers Debian's chromium-headless-shell (smaller), falls back to chromium.
set -euo pipefail
for b in chromium-headless-shell chromium chromium-browser; do
  if command -v "$b" >/dev/null 2>&1; then
    echo "chromium: $(command -v "$b") present"
    exit 0
  fi
done
SUDO=
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "chromium: not root and no sudo; cannot apt-get install" >&2; exit 1; }
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
install() { $SUDO apt-get install -y --no-install-recommends "$@" >/dev/null; }
if ! install chromium-headless-shell 2>/dev/null; then
  $SUDO apt-get update -qq >/dev/null
  install chromium-headless-shell || install chromium
fi
for b in chromium-headless-shell chromium; do
  if command -v "$b" >/dev/null 2>&1; then
    echo "chromium: installed $(command -v "$b")"
    exit 0
  fi
done
echo "chromium: installation finished but no binary found on PATH" >&2
exit 1
