#!/usr/bin/env bash
# Installs Python-Markdown and pymdown-extensions (what MkDocs Material
# renders with) from Debian, as the oracle for render/markdown's admonition
# tests. Idempotent: returns at once when they import.
set -euo pipefail
if /usr/bin/python3 -c "import markdown, pymdownx" 2>/dev/null; then
  echo "pymarkdown: present"
  exit 0
fi
SUDO=
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "pymarkdown: not root and no sudo; cannot apt-get install" >&2; exit 1; }
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y --no-install-recommends python3-markdown python3-pymdownx >/dev/null 2>&1; then
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y --no-install-recommends python3-markdown python3-pymdownx >/dev/null
fi
/usr/bin/python3 -c "import markdown, pymdownx" && echo "pymarkdown: installed"
