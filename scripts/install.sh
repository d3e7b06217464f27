#!/usr/bin/env bash
# From a fresh clone to a working install: the build dependencies (scripts/setup.sh), then
# `pip install .` (the C++ library, the Python module and the CLI, through
# scikit-build-core), then a check that `import tritium` works and `tritium` is on PATH.
#   bash scripts/install.sh            (PYTHON=python3.x to choose the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
bash scripts/setup.sh
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
# Debian's system Python refuses pip installs (PEP 668) unless told; a venv or pyenv does not.
if ! "$PYTHON" -m pip install --no-build-isolation . ; then
  "$PYTHON" -m pip install --no-build-isolation --break-system-packages .
fi
cd /  # not the checkout: its python/ must not stand in for the installed package
"$PYTHON" -c "import tritium; print('import tritium:', tritium.__version__, tritium.__file__)"
scripts="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_path("scripts"))')"
if command -v tritium >/dev/null; then
  tritium --version
else
  echo "install: the tritium command is in $scripts, which is not on PATH; add it:"
  echo "  export PATH=\"$scripts:\$PATH\""
  exit 1
fi
