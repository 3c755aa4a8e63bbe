"""CONTRIBUTING.md cannot rot: its code blocks are the sources they quote, and the example
panel is built, drawn and exported from the page's own code block."""

from __future__ import annotations

import re
import types
from pathlib import Path

import numpy as np
import pytest

from attnviz.model.panel_data import panel_data
from attnviz.model.panels import panel_spec
from attnviz.model.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "CONTRIBUTING.md"
_BLOCK = re.compile(r"^```python (file|from)=(\S+)\n(.*?)^```$", re.M | re.S)


def _blocks() -> list[tuple[str, str, str]]:
    """``(kind, path, code)`` of every tagged code block of the guide."""
    return _BLOCK.findall(GUIDE.read_text(encoding="utf-8"))


def test_every_code_block_of_the_guide_is_the_source_it_names():
    blocks = _blocks()
    assert {(kind, path) for kind, path, _code in blocks} == {
        ("from", "attnviz/model/resolve/attention.py"),
        ("from", "attnviz/model/panels.py"),
        ("file", "attnviz/ui/panels/entropy.py"),
    }
    for kind, path, code in blocks:
        source = (ROOT / path).read_text(encoding="utf-8")
        if kind == "file":
            assert code == source, f"CONTRIBUTING.md's {path} is not the file's text"
        else:
            assert code in source, f"CONTRIBUTING.md quotes {path} as it no longer is"


def _panel_class_from_the_guide():
    """The panel class the guide's module block defines, run as a module of its own."""
    code = next(code for kind, _path, code in _blocks() if kind == "file")
    module = types.ModuleType("contributing_example")
    exec(compile(code, str(GUIDE), "exec"), module.__dict__)
    from attnviz.ui.panel_base import Panel

    found = [v for v in vars(module).values() if isinstance(v, type) and issubclass(v, Panel)]
    return next(cls for cls in found if cls.__module__ == module.__name__)


def test_the_example_panel_builds_draws_and_exports_from_the_guide(qtbot, tmp_path):
    from attnviz.ui.theme import theme_named

    cls = _panel_class_from_the_guide()
    assert cls.PANEL_ID == "entropy" and panel_spec(cls.PANEL_ID).data == ("entropy",)
    workspace = Workspace()
    workspace.state.update(tokens=("o", "gato", "subiu", "no", "telhado"), causal=True)
    panel = cls.create(workspace)
    qtbot.addWidget(panel)
    panel.apply_theme(theme_named("dark"))
    panel.resize(640, 420)
    panel.show()
    qtbot.waitExposed(panel)
    # What it draws: a bar per row at the exact entropy, the bounds ln 1 … ln 5 (causal).
    weights = workspace.resolver.results.attention.weights
    with np.errstate(divide="ignore", invalid="ignore"):
        oracle = -np.nansum(np.where(weights > 0, weights * np.log(weights), 0.0), axis=1)
    heights = panel.bars.opts["height"]
    np.testing.assert_allclose(heights, oracle, rtol=1e-12, atol=1e-15)
    _x, bounds = panel.bounds.getData()
    np.testing.assert_allclose(bounds, np.log(np.arange(1, 6)), rtol=1e-15)
    assert panel.plot.getAxis("bottom")._tickLevels[0] == list(enumerate(workspace.state.tokens))
    # Its figure is what an export draws, in the theme's colours (not the window's).
    image = panel.figure_widget().grab().toImage()
    assert image.width() > 100 and image.pixelColor(5, 5).lightness() < 80
    # The data it exports, as --matrix entropy writes them.
    data = panel_data(workspace, "entropy", "entropy")
    np.testing.assert_allclose(data.values[:, 0], oracle, rtol=1e-12, atol=1e-15)
    assert data.rows == workspace.state.tokens and data.corner == "nats"


def test_the_example_panel_exports_through_the_command_line(tmp_path):
    from attnviz.cli import main

    for ext in ("png", "svg", "csv", "npy"):
        out = tmp_path / f"entropy.{ext}"
        argv = ["export", "--preset", "gato", "--panel", "entropy", "--out", str(out)]
        assert (
            main([*argv, "--width", "640", "--height", "360"] if ext in ("png", "svg") else argv)
            == 0
        )
        assert out.stat().st_size > 0
    rows = (tmp_path / "entropy.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "nats,entropy,ln keys seen"
    assert rows[1] == "o,0.0,0.0"  # the first of a causal sentence sees one key
    values = np.load(tmp_path / "entropy.npy")
    assert values.shape == (5, 2) and values[4, 1] == pytest.approx(np.log(5), rel=1e-15)
