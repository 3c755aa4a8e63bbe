"""Test-wide settings: Qt runs offscreen, pyqtgraph uses PySide6."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

# CI runs every property test on the same examples each time (ATTNVIZ_HYPOTHESIS=ci, set by
# .ci/run): a clean clone has no example database, and a fresh random draw there found
# float32 rounding cases twice that the tests' bars had to learn, failing a landing on an
# unrelated change. A developer's `make test` keeps drawing new examples (and keeps the
# failing ones in .hypothesis/), which is where such cases are meant to be found.
import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("ATTNVIZ_HYPOTHESIS", "default"))


@pytest.fixture(scope="module")
def qwen3_next_folder(tmp_path_factory):
    """A tiny random Qwen3-Next's folder (Gated DeltaNet, softmax, Gated DeltaNet,
    softmax), built once per module that asks; skipped where transformers has none."""
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("torch")
    if "qwen3_next" not in transformers.CONFIG_MAPPING:
        pytest.skip(f"transformers {transformers.__version__} has no Qwen3-Next")
    from tests.core.test_hf_families_2026 import _tiny

    folder = tmp_path_factory.mktemp("models") / "tiny-qwen3-next"
    _tiny(folder, "qwen3_next")
    return str(folder)
