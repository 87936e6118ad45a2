#!/usr/bin/env bash
# Installs Debian's python3-numpy for collect/metrics' cross-check test
# (TestAgainstNumpy recomputes every statistic with numpy itself). The test
# uses /usr/bin/python3: a python3 on PATH may be a pyenv shim that does not
# see Debian packages. Idempotent: does nothing when numpy already imports.
set -euo pipefail
py=/usr/bin/python3
if [ -x "$py" ] && "$py" -c 'import numpy' 2>/dev/null; then
  echo "numpy $("$py" -c 'import numpy; print(numpy.__version__)') already available to $py"
  exit 0
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo="sudo -n"
  else
    echo "install-05-numpy: need root (or password-less sudo) to apt-get install python3-numpy" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# apt-get update only when the package is unknown to the local lists.
if ! apt-cache show python3-numpy >/dev/null 2>&1; then
  $sudo apt-get update -qq
fi
$sudo apt-get install -y -qq --no-install-recommends python3 python3-numpy >/dev/null
"$py" -c 'import numpy; print("numpy", numpy.__version__, "installed for '"$py"'")'
