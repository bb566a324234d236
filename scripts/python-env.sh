#!/usr/bin/env bash
# Creates (or refreshes) .venv, the Python environment of the managed trainer, the GGUF writer, the
# Ray study driver and the tests that read TensorBoard files: trainers/requirements.txt, pinned.
# Idempotent: does nothing when .venv already holds exactly these pins.
#
# Where pip is configured with local wheel indexes (file:// URLs, as on the project's CI machines),
# the first is used as the index and the second as the extra index, so that pip never waits on a
# public index it cannot reach. Elsewhere pip's own configuration applies (PyPI for most users).
# SPARRING_PYTHON picks the interpreter that creates the venv (default: python3, 3.10 to 3.12).
set -euo pipefail
cd "$(dirname "$0")/.."
req=trainers/requirements.txt
venv=.venv
want=$(sha256sum "$req" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.requirements-sha256" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
py=${SPARRING_PYTHON:-python3}
if ! command -v "$py" >/dev/null; then
  echo "python-env: $py not found; install Python 3.10-3.12 (Debian: apt-get install python3 python3-venv)" >&2
  exit 1
fi
if ! "$py" -c 'import ensurepip' 2>/dev/null; then
  echo "python-env: $py has no venv support; Debian: apt-get install python3-venv" >&2
  exit 1
fi
args=()
mapfile -t local_indexes < <(pip config list 2>/dev/null | grep -oE "file://[^' ]+" | grep -v wheels || true)
if [ ${#local_indexes[@]} -ge 1 ]; then
  args+=(--index-url "${local_indexes[0]}")
  [ ${#local_indexes[@]} -ge 2 ] && args+=(--extra-index-url "${local_indexes[1]}")
  echo "python-env: installing $req from the local index ${local_indexes[0]}"
else
  echo "python-env: installing $req with pip's own configuration"
fi
rm -rf "$venv"
"$py" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "${args[@]}" -r "$req" 2>&1 | grep -v "is ignored: it is neither a file nor a directory" || true
"$venv/bin/python" -c 'import torch, transformers, trl, peft, gguf, ray, tensorboard' || {
  echo "python-env: $req did not install: the packages above are missing (is the wheel index reachable?)" >&2
  rm -rf "$venv"
  exit 1
}
echo "$want" > "$venv/.requirements-sha256"
echo "python-env: $venv ready ($("$venv/bin/python" --version))"
