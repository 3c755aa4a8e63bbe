#!/usr/bin/env bash
# Build the frozen app with PyInstaller: packaging/build.sh [--torch | --models]
#
#   default  → dist/attnviz/         (no torch; the bundle lecturers get)
#   --torch  → dist/attnviz-torch/   (with the CPU build of torch, for long-sequence demos)
#   --models → dist/attnviz-models/  (torch CPU and the models extra: transformers,
#                                     tokenizers, safetensors; opens real model folders)
#
# The build runs in its own virtual environment (.venv-package, .venv-package-torch), never
# in the development .venv: that one holds pytest, hypothesis, torch and whatever else a
# developer installed, and PyInstaller bundles whatever it can import. The venv is made
# again only when pyproject.toml changes; attnviz itself is frozen from the checkout.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
variant=default
case "${1:-}" in
    "") ;;
    --torch) variant=torch ;;
    --models) variant=models ;;
    *) echo "usage: packaging/build.sh [--torch | --models]" >&2; exit 2 ;;
esac

extras=package
if [[ $variant == torch || $variant == models ]]; then
    venv=.venv-package-$variant
    folder=attnviz-$variant
    [[ $variant == models ]] && extras=package,models
    # The CPU wheel: on this project's machines pip finds torch==2.13.0+cpu locally (the
    # same pin as the test extra); elsewhere point pip at the CPU index, e.g.
    # TORCH_PIP_ARGS="torch --index-url https://download.pytorch.org/whl/cpu".
    torch_args=${TORCH_PIP_ARGS:-torch==2.13.0}
else
    venv=.venv-package
    folder=attnviz
    torch_args=
fi
py=$venv/bin/python
stamp=$venv/.installed

if [[ ! -f $stamp || pyproject.toml -nt $stamp ]]; then
    echo "build.sh: making the build environment $venv"
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    "$py" -m pip install --quiet --upgrade pip
    # ".[package]" brings the runtime dependencies and PyInstaller; attnviz itself is then
    # removed so that PyInstaller freezes the checkout (pathex in the spec), never a stale copy.
    # shellcheck disable=SC2086  # torch_args is a word list on purpose
    "$py" -m pip install --quiet ".[$extras]" $torch_args
    "$py" -m pip uninstall --quiet --yes attnviz
    if [[ -n $torch_args ]]; then
        # A CUDA build would add gigabytes of NVIDIA libraries to the bundle.
        "$py" -c 'import sys, torch; sys.exit(f"torch {torch.__version__} is a CUDA build; install the CPU wheel (TORCH_PIP_ARGS)" if torch.version.cuda else 0)'
    fi
    touch "$stamp"
fi

export PYQTGRAPH_QT_LIB=PySide6  # hooks import pyqtgraph; make it pick the bundled binding
if [[ -n $torch_args ]]; then export ATTNVIZ_BUNDLE_TORCH=1; else unset ATTNVIZ_BUNDLE_TORCH; fi
if [[ $variant == models ]]; then export ATTNVIZ_BUNDLE_MODELS=1; else unset ATTNVIZ_BUNDLE_MODELS; fi

start=$SECONDS
if [[ $(uname -s) == Linux ]]; then
    # Every library Qt's xcb plugin loads goes into the bundle, even those this machine
    # lacks (from their Debian packages; nothing is installed here), or the build stops
    # with the command that installs them.
    "$py" packaging/xcb_libs.py build/xcb-libs
fi
# nice: the build shares two cores with tests that other people are running.
nice -n 10 "$py" -m PyInstaller --noconfirm --log-level WARN \
    --distpath dist --workpath "build/pyinstaller-$variant" packaging/attnviz.spec
if [[ $(uname -s) == Linux ]]; then
    # Menu entry, icons, the sessions' MIME type and the AppStream metainfo for the user's
    # desktop: ./install-desktop.sh from the bundle.
    cp packaging/io.github.attnviz.Attnviz.desktop packaging/io.github.attnviz.Attnviz.xml \
        packaging/io.github.attnviz.Attnviz.metainfo.xml packaging/install-desktop.sh \
        "dist/$folder/"
fi
echo "build.sh: dist/$folder built in $((SECONDS - start)) s; size $(du -sh "dist/$folder" | cut -f1)"
