"""Controls of the long-sequence panels: spin boxes, choice boxes and the backend selector.

:class:`BackendChoice` lists NumPy, torch on the CPU, CUDA and auto. Whether torch and a
CUDA device are here is asked once, on a worker thread (importing torch takes a second
or two), and an entry this machine cannot run is greyed out with the reason in its text
and tooltip (torch not installed, no CUDA device).
"""

from __future__ import annotations

import importlib.util

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QSpinBox, QWidget
from shiboken6 import isValid

from attnviz.model.resolve.long_backends import backend_status
from attnviz.model.topics.long import BACKENDS, DTYPES, HALF
from attnviz.ui.workers import run_in_pool

_C = "BackendChoice"
BACKEND_NAMES = {
    "numpy": QT_TRANSLATE_NOOP("BackendChoice", "NumPy"),
    "torch": QT_TRANSLATE_NOOP("BackendChoice", "torch (CPU)"),
    "cuda": QT_TRANSLATE_NOOP("BackendChoice", "CUDA (GPU)"),
    "auto": QT_TRANSLATE_NOOP("BackendChoice", "auto"),
}
REASONS = {
    "no-torch": QT_TRANSLATE_NOOP(
        "BackendChoice",
        "torch is not installed (its CPU build: pip install torch --index-url "
        "https://download.pytorch.org/whl/cpu)",
    ),
    "no-cuda": QT_TRANSLATE_NOOP("BackendChoice", "no CUDA device (torch %1)"),
    "checking": QT_TRANSLATE_NOOP("BackendChoice", "looking for a GPU…"),
}
SHORT_REASONS = {
    "no-torch": QT_TRANSLATE_NOOP("BackendChoice", "not installed"),
    "no-cuda": QT_TRANSLATE_NOOP("BackendChoice", "no device"),
    "checking": QT_TRANSLATE_NOOP("BackendChoice", "checking…"),
}
TIPS = {
    "numpy": QT_TRANSLATE_NOOP("BackendChoice", "Exact NumPy on every CPU core"),
    "torch": QT_TRANSLATE_NOOP("BackendChoice", "torch on the CPU (%1)"),
    "cuda": QT_TRANSLATE_NOOP("BackendChoice", "torch on the GPU: %1"),
    "auto": QT_TRANSLATE_NOOP("BackendChoice", "CUDA when a GPU is present, else NumPy"),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def theme_figure(figure: QWidget, theme) -> None:
    """Paint ``figure`` (a panel's exported part) in ``theme``'s colours itself.

    Under the panel's style sheet the children of a panel do not take the palette an
    offscreen export gives it, so a dark slide would get light-theme labels and a light
    background; a style sheet of the figure's own sets both.
    """
    name = figure.objectName() or "figure"
    figure.setObjectName(name)
    figure.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
    figure.setStyleSheet(
        f"#{name} {{ background-color: {theme.background}; }} "
        f"QLabel {{ color: {theme.foreground}; background: transparent; }}"
    )


def spin_box(lo: int, hi: int, tip: str, *, adaptive: bool = False) -> QSpinBox:
    """An integer box that writes only when the typing is done (no map per keystroke)."""
    box = QSpinBox()
    box.setRange(lo, hi)
    box.setKeyboardTracking(False)
    box.setGroupSeparatorShown(hi >= 10000)
    if adaptive:  # the arrows step by about a tenth of the value: 4,096 → 4,500 → …
        box.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
    box.setToolTip(tip)
    return box


def narrow(box: QComboBox, chars: int = 8) -> QComboBox:
    """Let ``box`` be narrower than its longest entry (the popup still shows it whole), so
    the panel does not force its width on the window."""
    box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    box.setMinimumContentsLength(chars)
    return box


def choice_box(names: dict, context: str, tip: str) -> QComboBox:
    """A combo box of ``names`` (value → untranslated text of ``context``)."""
    box = narrow(QComboBox())
    for value, text in names.items():
        box.addItem(QCoreApplication.translate(context, text), value)
    box.setToolTip(tip)
    return box


class BackendChoice(QComboBox):
    """The backend selector, with what this machine lacks greyed out and explained.

    ``dtype_box`` is the companion precision selector (half precision only on CUDA).

    Signals
    -------
    sigChosen(backend, dtype)
        The user picked an available backend.
    """

    sigChosen = Signal(str, str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("backend")
        narrow(self)
        self.status: dict = {}
        self._asked = False
        for name in BACKENDS:
            self.addItem(_tr(BACKEND_NAMES[name]), name)
        self.setToolTip(self.tr("Where the map is computed"))
        self.dtype_box = narrow(QComboBox(), 7)
        self.dtype_box.setObjectName("dtype")
        for name in DTYPES:
            self.dtype_box.addItem(name, name)
        self.dtype_box.setToolTip(self.tr("Precision of q and k (bfloat16 and float16 on a GPU)"))
        self.activated.connect(self._on_q_activated)
        torch_here = importlib.util.find_spec("torch") is not None
        self._set("torch", torch_here, "" if torch_here else "no-torch")
        self._set("cuda", False, "checking" if torch_here else "no-torch")

    def probe(self) -> None:
        """Ask, once and on a worker, which backends this machine runs."""
        if self._asked:
            return
        self._asked = True
        run_in_pool(backend_status, self._on_q_status)

    def _on_q_status(self, status) -> None:
        if not isValid(self) or isinstance(status, BaseException):
            return
        self.status = status
        for name, st in status.items():
            self._set(name, st.available, st.reason, st.detail)

    def _set(self, name: str, available: bool, reason: str, detail: str = "") -> None:
        i = self.findData(name)
        item = self.model().item(i)
        item.setEnabled(available)
        text = _tr(BACKEND_NAMES[name])
        if available:
            tip = _tr(TIPS[name]).replace("%1", detail)
        else:
            text += " — " + _tr(SHORT_REASONS[reason])
            tip = _tr(REASONS[reason]).replace("%1", detail)
        self.setItemText(i, text)
        self.setItemData(i, tip, Qt.ItemDataRole.ToolTipRole)

    def entries(self) -> list[tuple[str, bool, str]]:
        """``(backend, enabled, tooltip)`` of each entry, as listed."""
        out = []
        for i in range(self.count()):
            enabled = self.model().item(i).isEnabled()
            out.append((self.itemData(i), enabled, self.itemData(i, Qt.ItemDataRole.ToolTipRole)))
        return out

    def label(self, name: str) -> str:
        """The translated name of backend ``name`` (as it ran: numpy, torch, cuda)."""
        return _tr(BACKEND_NAMES.get(name, name)) if name in BACKEND_NAMES else name

    def show_choice(self, backend: str, dtype: str) -> None:
        """Show the topic's backend and precision (signals blocked)."""
        self.blockSignals(True)
        self.setCurrentIndex(self.findData(backend))
        self.blockSignals(False)
        box = self.dtype_box
        for i in range(box.count()):
            name = box.itemData(i)
            ok = name in HALF if backend == "cuda" else name not in HALF
            box.model().item(i).setEnabled(ok or (backend == "cuda" and name == "float32"))
        box.blockSignals(True)
        box.setCurrentIndex(box.findData(dtype))
        box.blockSignals(False)

    def _on_q_activated(self, index: int) -> None:
        self.sigChosen.emit(self.itemData(index), self.dtype_box.currentData())
