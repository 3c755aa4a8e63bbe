"""Start-up: the window builds and imports only what it shows first, and still reaches every
panel; what start-up leaves for later (superqt, the lessons, the collector) comes back."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap

import pytest
from PySide6.QtWidgets import QPushButton, QWidget

from attnviz.model.panels import panel_ids, panel_spec
from attnviz.ui.panels import panel_class, panel_classes, panel_title

#: What must not load before the first paint (DESIGN.md: none of them is needed there).
HEAVY = ("torch", "transformers", "scipy", "PIL", "superqt", "qtpy", "attnviz.model.lessons")
#: attnviz's own modules that the first window does without: a presentation, a projections
#: head, the model chain (loaders, proofs, capture: a model is opened later, if ever) and
#: the gradient's resolver (made by the first panel that watches it).
LATER = (
    "attnviz.ui.stage",
    "attnviz.ui.widgets.projection_editor",
    "attnviz.model.real_model",
    "attnviz.core.hf_capture",
    "attnviz.core.hf_record",
    "attnviz.core.hf_folder",
    "attnviz.model.model_proof",
    "attnviz.model.resolve.gradient",
)

_FIRST_WINDOW = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from attnviz.ui.main_window import MainWindow
    window = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat))
    window.show_first()
    for _ in range(20):
        app.processEvents()
    built = sorted(pid for pid in window.docks if dict.__contains__(window.panels, pid))
    modules = sorted(m for m in sys.modules if m.startswith("attnviz.ui.panels."))
    print(json.dumps({"built": built, "modules": modules, "loaded": sorted(sys.modules),
                      "titles": {p: d.windowTitle() for p, d in window.docks.items()}}))
    import os
    os._exit(0)
    """
)


def _run(code: str, *args: str) -> str:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


_LAID_OUT_ONCE = textwrap.dedent(
    """
    import json, sys
    from PySide6.QtCore import QEvent, QObject, QSettings
    from PySide6.QtWidgets import QApplication, QWidget
    app = QApplication([])
    from attnviz.ui.main_window import MainWindow
    sizes = {}
    class Sizes(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Resize and isinstance(obj, QWidget):
                name = obj.objectName()
                if name == "MainWindow" or name.startswith("panel_"):
                    sizes.setdefault(name, []).append(event.size().toTuple())
            return False
    watcher = Sizes()
    app.installEventFilter(watcher)
    window = MainWindow(settings=QSettings(sys.argv[1], QSettings.Format.IniFormat))
    window.show_first()
    for _ in range(20):
        app.processEvents()
    if len(sys.argv) > 2:  # settle, as a window does before it is closed, and save
        import time
        deadline = time.monotonic() + 0.6
        while time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.01)
        window.save_layout()
    print(json.dumps({"sizes": sizes, "final": {
        n: [w.width(), w.height()] for n, w in
        [("MainWindow", window), *((p.objectName(), p) for p in window.panels.values())]},
        "loaded": sorted(sys.modules)}))
    import os
    os._exit(0)
    """
)


def test_the_window_is_laid_out_at_its_size_once(tmp_path):
    """Maximized before it is shown, and each panel built at its dock's size: no layout of
    the window (and of every panel) at another size first. (At the very first start the
    docks take their shares only once shown, and the panels follow them once more.)"""
    import json

    settings = str(tmp_path / "settings.ini")
    first = json.loads(_run(_LAID_OUT_ONCE, settings, "save"))
    assert len({tuple(s) for s in first["sizes"]["MainWindow"]}) == 1
    again = json.loads(_run(_LAID_OUT_ONCE, settings))  # the layout saved by the first
    sizes, final = again["sizes"], again["final"]
    assert len(sizes) >= 4 and len({tuple(s) for s in sizes["MainWindow"]}) == 1
    for name, seen in sizes.items():
        # Built at its dock's room, never at a default 100 × 30 first; once the steps'
        # tables have their heights, the separator between two docks may still move by a
        # few pixels (no more than that).
        width, height = seen[0]
        assert width == final[name][0] and abs(height - final[name][1]) <= 12, (name, seen)
        assert len(seen) <= 2, (name, seen)
    # Nor is what only a presentation, a projections head, an opened model or the gradient
    # shows imported.
    for out in (first, again):
        for module in LATER:
            assert module not in out["loaded"], module


def test_each_panel_class_takes_its_title_from_its_row():
    assert {cls.PANEL_ID for cls in panel_classes()} == set(panel_ids())
    for cls in panel_classes():
        assert not hasattr(cls, "TITLE")  # one place: the row
        assert cls.title() == panel_spec(cls.PANEL_ID).title  # English: as written there
        assert panel_title(cls.PANEL_ID) == cls.title()
        assert panel_class(cls.PANEL_ID) is cls
    with pytest.raises(ValueError, match="unknown panel 'nope'"):
        panel_title("nope")


def test_the_first_window_builds_and_imports_only_the_panels_it_shows(tmp_path):
    import json

    out = json.loads(_run(_FIRST_WINDOW, str(tmp_path / "settings.ini")))
    assert out["built"] and set(out["built"]) < set(panel_ids())
    assert "heatmap" in out["built"]
    assert out["modules"] == [f"attnviz.ui.panels.{pid}" for pid in out["built"]]
    assert not [m for m in out["loaded"] if m.split(".")[0] in HEAVY or m in HEAVY]
    # Every dock has its title (and so its View menu entry) without its module.
    assert out["titles"] == {pid: panel_spec(pid).title for pid in panel_ids()}


def test_every_dock_builds_its_panel_when_it_comes_forward(make_window, qtbot):
    window = make_window(size=None)
    for pid, dock in window.docks.items():
        dock.show()
        dock.raise_()
        qtbot.waitUntil(lambda pid=pid: dict.__contains__(window.panels, pid))
        panel = window.docks[pid].widget()
        assert pid == type(panel).PANEL_ID and dock.windowTitle() == type(panel).title()


def test_the_gui_start_parses_its_arguments_without_the_commands():
    code = textwrap.dedent(
        """
        import sys
        import attnviz.cli as cli
        args = cli._parse(cli._parser(None, full=cli._asks_help([])), ["--self-test"])
        assert args.self_test and args.command is None
        print(sorted(m for m in sys.modules if m.startswith("attnviz.commands.")))
        """
    )
    assert _run(code).strip() == "['attnviz.commands._args']"
    help_text = _run("from attnviz.cli import main; main(['--help'])")
    for name in ("bench", "export", "kv", "lessons"):
        assert name in help_text


def test_the_collector_is_held_until_the_window_is_painted():
    from attnviz.ui import app

    was = gc.isenabled()
    gc.enable()
    try:
        app.hold_garbage_collection()
        assert not gc.isenabled()
        app.release_garbage_collection()
        assert gc.isenabled() and gc.get_freeze_count() > 0
        app.release_garbage_collection()  # once only
        gc.disable()  # someone else's choice: hold and release leave it alone
        app.hold_garbage_collection()
        app.release_garbage_collection()
        assert not gc.isenabled()
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()


def test_the_flow_layout_wraps_its_widgets(qtbot):
    from attnviz.ui.widgets.flow_layout import FlowLayout

    box = QWidget()
    qtbot.addWidget(box)
    flow = FlowLayout(box)
    buttons = [QPushButton(f"experiment {i}") for i in range(5)]
    for b in buttons:
        flow.addWidget(b)
    assert flow.count() == 5 and flow.itemAt(5) is None
    wide = sum(b.sizeHint().width() for b in buttons) + 100
    box.resize(wide, flow.heightForWidth(wide))
    box.show()
    qtbot.waitExposed(box)
    assert len({b.y() for b in buttons}) == 1  # one line
    narrow = buttons[0].sizeHint().width() + 10
    assert flow.heightForWidth(narrow) > flow.heightForWidth(wide)
    box.resize(narrow, flow.heightForWidth(narrow))
    qtbot.waitUntil(lambda: len({b.y() for b in buttons}) == 5)  # one a line
    assert all(b.x() == buttons[0].x() for b in buttons)
    taken = flow.takeAt(0)
    assert taken.widget() is buttons[0] and flow.count() == 4


def test_a_lazy_throttle_imports_superqt_at_its_first_call(qtbot):
    from PySide6.QtCore import QObject

    from attnviz.ui.widgets.throttle import LazyThrottled

    owner = QObject()
    calls = []
    throttled = LazyThrottled(calls.append, timeout=10, parent=owner)
    throttled.flush()  # nothing pending, nothing made
    assert throttled._throttled is None
    throttled(1)
    throttled(2)
    throttled(3)
    qtbot.waitUntil(lambda: calls and calls[-1] == 3)
    assert calls[0] == 1 and len(calls) <= 3  # the leading call, then the last one
    qtbot.wait(30)
    throttled(4)  # a new period: at once
    throttled(5)  # pending, then dropped
    throttled.cancel()
    qtbot.wait(30)
    assert calls[-1] == 4 and 5 not in calls
