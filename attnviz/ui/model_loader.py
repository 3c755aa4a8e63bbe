"""File → Open Model…: a local Hugging Face model folder, loaded on a worker with progress.

:class:`ModelController` owns the actions (Open Model…, Memory Card from This Model), runs
loading and every new sentence on the long-computation pool (never the GUI thread: loading
takes seconds), shows the stage in a progress dialog, and writes the attention topic only
once the sentence is captured, so the write itself is instant (the topic finds the capture
in :data:`attnviz.model.real_model.STORE`). A refusal — not a model, pickle weights, remote
code, no tokenizer, an unsupported architecture, too large for free memory, transformers
missing — is one clear message. Without transformers the action says how to get it.

It also says when a what-if detaches a head from the model (a typed vector, token or d_k
makes the head ``manual``), and ``attnviz --model DIR`` opens a folder at start
(:func:`open_at_start`).
"""

from __future__ import annotations

import threading
import time

import shiboken6
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QMessageBox, QProgressDialog

# Not hf_capture nor real_model: the model chain loads when a model is first opened.
from attnviz.core.builtin_models import PREFIX
from attnviz.core.hf_errors import (
    INSTALL_HINT,
    LoadCancelled,
    ModelError,
    transformers_available,
)
from attnviz.model.fields import StateError
from attnviz.model.topics.memory import card_values_from_folder
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.numbers import counted
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.workers import run_in_pool

_C = "ModelController"
_START: list[str] = []  # a folder `attnviz --model DIR` opens once the window is up
#: What the progress dialog says at each stage of :func:`attnviz.core.hf_capture.load_model`.
STAGES = {
    "check": QT_TRANSLATE_NOOP("ModelController", "Checking the folder…"),
    "import": QT_TRANSLATE_NOOP("ModelController", "Starting transformers and torch…"),
    "tokenizer": QT_TRANSLATE_NOOP("ModelController", "Reading the tokenizer…"),
    "weights": QT_TRANSLATE_NOOP("ModelController", "Loading the weights…"),
    "ready": QT_TRANSLATE_NOOP("ModelController", "Loading the weights…"),
    "forward": QT_TRANSLATE_NOOP("ModelController", "Running the sentence through the model…"),
    "proof": QT_TRANSLATE_NOOP(
        "ModelController", "Checking every head against the model's own weights…"
    ),
}


def _tr(text: str) -> str:
    return QCoreApplication.translate(_C, text)


def open_at_start(path: str) -> None:
    """Open ``path`` in the next window that starts (``attnviz --model DIR``)."""
    _START[:] = [path]


def controller_for(widget) -> ModelController | None:
    """The model controller of ``widget``'s main window, or None (an exported panel)."""
    window = widget.window()
    return getattr(window, "models", None) if isinstance(window, QMainWindow) else None


class ModelController(QObject):
    """Opens models and runs sentences for one main window (see the module docstring).

    Signals
    -------
    sigBusy(bool)
        Loading or running started / ended.
    sigFailed(str)
        A refusal or failure, one line.
    sigCaptured(object)
        A sentence was captured and shown (the :class:`~attnviz.core.hf_capture.Capture`).
    """

    sigBusy = Signal(bool)  # Qt naming
    sigFailed = Signal(str)  # Qt naming
    sigCaptured = Signal(object)  # Qt naming

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.state = window.document.attention
        self.memory = window.document.memory
        self.busy = False
        self.last_error = ""
        self.detached_message = ""
        self.timings: dict[str, float] = {}
        self._generation = 0
        self._cancelled: threading.Event | None = None  # the running job's cancel flag
        self._stage = ""
        self._progress: QProgressDialog | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(100)
        self._timer.timeout.connect(self._show_stage)
        available = transformers_available()
        self.open_action = QAction(
            QCoreApplication.translate("ModelController", "Open &Model…"), window
        )
        self.open_action.setObjectName("action_open_model")
        self.open_action.setShortcut(QKeySequence("Ctrl+Shift+O"))
        tip = (
            QCoreApplication.translate(
                "ModelController",
                "Open a local Hugging Face model folder and explore its real heads",
            )
            if available
            else QCoreApplication.translate(
                "ModelController", "Opening a model needs transformers: %1"
            ).replace("%1", INSTALL_HINT)
        )
        self.open_action.setStatusTip(tip)
        self.open_action.setToolTip(tip)
        self.open_action.triggered.connect(self.open_dialog)
        self.card_action = QAction(
            QCoreApplication.translate("ModelController", "Memory Card from This Model"), window
        )
        self.card_action.setObjectName("action_model_card")
        self.card_action.setStatusTip(
            QCoreApplication.translate(
                "ModelController", "Fill the memory panel's card from the open model's config.json"
            )
        )
        self.card_action.triggered.connect(self.fill_memory_card)
        self.train_action = QAction(
            QCoreApplication.translate("ModelController", "&Train Induction Heads…"), window
        )
        self.train_action.setObjectName("action_train_induction")
        self.train_action.setStatusTip(
            QCoreApplication.translate(
                "ModelController",
                "Train a small decoder until induction heads form, watching its curves",
            )
        )
        self.train_action.triggered.connect(self.show_train_dialog)
        self.train_dialog = None  # made on first use: it imports the training module
        self._install_menu()
        bind(self, self.state.changed, self._on_state_changed)
        self._was_model = self.state.head == "model"
        self._on_state_changed(frozenset({"model_path"}))
        if _START:
            path = _START.pop()
            QTimer.singleShot(0, lambda: self.open_path(path))

    def retranslate(self) -> None:
        """Texts in the language running now (after View → Language)."""
        self.open_action.setText(QCoreApplication.translate("ModelController", "Open &Model…"))
        self.train_action.setText(
            QCoreApplication.translate("ModelController", "&Train Induction Heads…")
        )
        self.train_action.setStatusTip(
            QCoreApplication.translate(
                "ModelController",
                "Train a small decoder until induction heads form, watching its curves",
            )
        )
        if self.train_dialog is not None:
            self.train_dialog.retranslate()
        self.card_action.setText(
            QCoreApplication.translate("ModelController", "Memory Card from This Model")
        )
        self.card_action.setStatusTip(
            QCoreApplication.translate(
                "ModelController", "Fill the memory panel's card from the open model's config.json"
            )
        )

    def _install_menu(self) -> None:
        menu = self.window.menuBar().findChild(QMenu, "menu_file")
        if menu is None:
            return
        actions = menu.actions()
        export = getattr(self.window, "export_action", None)
        at = actions.index(export) if export in actions else len(actions)
        before = (
            actions[at - 1]
            if at > 0 and actions[at - 1].isSeparator()
            else (actions[at] if at < len(actions) else None)
        )
        menu.insertActions(before, [self.open_action, self.train_action, self.card_action])

    # --- model → view ------------------------------------------------------------------
    def _on_state_changed(self, names: frozenset) -> None:
        self.card_action.setEnabled(bool(self.state.model_path))
        is_model = self.state.head == "model"
        if self._was_model and not is_model and self.state.model_path and "head" in names:
            text = QCoreApplication.translate(
                "ModelController",
                "The head left the model: its edited values are a what-if, no longer "
                "what the model computes. Pick a head in Layers to go back.",
            )
            self.window.statusBar().showMessage(text, 10000)
            self.detached_message = text
        self._was_model = is_model

    # --- training ----------------------------------------------------------------------
    def show_train_dialog(self) -> None:
        """Show the Train window (one per main window, kept with its last run)."""
        from attnviz.ui.train_dialog import TrainDialog

        if self.train_dialog is None:
            themes = getattr(self.window, "themes", None)
            self.train_dialog = TrainDialog(
                self.window,
                theme=themes.theme if themes is not None else None,
                open_model=self.open_path,
            )
            if themes is not None:
                themes.sigThemeChanged.connect(self.train_dialog.apply_theme)
        self.train_dialog.show()
        self.train_dialog.raise_()
        self.train_dialog.activateWindow()

    # --- opening -----------------------------------------------------------------------
    def open_dialog(self) -> None:
        """Ask for a folder, then :meth:`open_path` it."""
        if not transformers_available():
            self._fail(
                QCoreApplication.translate(
                    "ModelController", "Opening a model needs transformers: %1"
                ).replace("%1", INSTALL_HINT)
            )
            return
        folder = QFileDialog.getExistingDirectory(
            self.window, QCoreApplication.translate("ModelController", "Open a model folder")
        )
        if folder:
            self.open_path(folder)

    def open_path(self, path: str, text: str | None = None) -> None:
        """Load the model in ``path`` (on a worker) and show ``text`` through it."""
        from attnviz.model import real_model

        try:
            folder = real_model.normalize_path(path)
        except real_model.ModelError as exc:  # a link loop, an unencodable name
            self._fail(str(exc))
            return
        # A shipped model keeps its name (builtin:induction): a session saved with it opens
        # wherever attnviz is installed, not only where its folder was.
        path = path.strip() if path.strip().startswith(PREFIX) else folder
        text = self.state.model_text if text is None else text
        self._start(
            lambda stage: real_model.STORE.capture(path, text, stage),
            lambda cap: self._show(cap, head="model", model_path=path, model_text=text),
        )

    def run_text(self, text: str) -> None:
        """Run ``text`` through the open model (on a worker), then show it."""
        from attnviz.model import real_model

        path = self.state.model_path
        if not path:
            self._fail(
                QCoreApplication.translate(
                    "ModelController", "No model is open: File → Open Model…"
                )
            )
            return
        self._start(
            lambda stage: real_model.STORE.capture(path, text, stage),
            lambda cap: self._show(cap, head="model", model_path=path, model_text=text),
        )

    def warm(self, path: str, text: str, *, then, fail) -> None:
        """Load the model of ``path`` and run ``text`` through it on the worker, with the
        same progress and cancel as Open Model; then call ``then()`` on the GUI thread, or
        ``fail(message)`` (a cancel calls neither). Opening a session uses this, so that
        its check finds the sentence captured instead of loading on the GUI thread."""
        from attnviz.model import real_model

        try:
            path = real_model.normalize_path(path)
        except real_model.ModelError as exc:
            fail(str(exc))
            return
        self._start(
            lambda stage: real_model.STORE.capture(path, text, stage),
            lambda _cap: then(),
            fail,
        )

    def _start(self, job, show, fail=None) -> None:
        """Run ``job(stage)`` on a worker; ``stage(name)`` reports progress and raises
        :class:`LoadCancelled` once this job is cancelled, so it stops at its next stage
        or layer and keeps nothing."""
        self._generation += 1
        generation = self._generation
        cancelled = threading.Event()
        self._cancelled = cancelled

        def stage(name: str, done: int = 0, total: int = 0, estimate: float | None = None):
            if cancelled.is_set():
                raise LoadCancelled("cancelled")
            self._set_stage(name, done, total, estimate)

        self.busy = True
        self.sigBusy.emit(True)
        self._stage, self._estimate = "check", 0.0
        started = time.perf_counter()

        def done(result) -> None:
            if not shiboken6.isValid(self):
                return  # the window closed while the worker ran
            if generation != self._generation:
                return  # cancelled, or a newer request is on its way
            self._end()
            if isinstance(result, BaseException):
                (fail or self._fail)(
                    str(result)
                    if isinstance(result, (ModelError, StateError))
                    else f"{type(result).__name__}: {result}"
                )
                return
            self.timings = {"total": time.perf_counter() - started, "forward": result.seconds}
            from attnviz.model import real_model

            loaded = real_model.STORE.loaded(result.path)
            if loaded is not None:
                self.timings["load"] = loaded.load_seconds
            show(result)

        self._open_progress()
        run_in_pool(lambda: job(stage), done)

    def _set_stage(
        self, stage: str, done: int = 0, total: int = 0, estimate: float | None = None
    ) -> None:
        # Called on the worker: each assignment is atomic, and the GUI's timer shows them.
        # The pass's first layer starts the clock the estimate of the rest reads; before
        # it, the capture's own estimate (from the sentence's length) is said.
        if stage == "forward" and done == 0:
            self._forward_start = time.perf_counter()
        if estimate is not None:
            self._estimate = estimate
        self._layers = (done, total)
        self._stage = stage

    _forward_start = 0.0
    _layers = (0, 0)
    _estimate = 0.0

    def _open_progress(self) -> None:
        dialog = QProgressDialog(self.window)
        dialog.setObjectName("model_progress")
        dialog.setWindowTitle(QCoreApplication.translate("ModelController", "Open Model"))
        dialog.setRange(0, 0)
        dialog.setMinimumDuration(300)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.canceled.connect(self.cancel)
        self._progress = dialog
        self._show_stage()
        self._timer.start()

    def _show_stage(self) -> None:
        if self._progress is not None:
            self._progress.setLabelText(self.stage_text())

    def stage_text(self) -> str:
        """What the dialog says now: the stage, and in the pass the layer it is at with the
        time left (the layers done so far, timed, say how long the rest takes)."""
        text = _tr(STAGES.get(self._stage, STAGES["check"]))
        done, total = self._layers
        if self._stage != "forward" or total <= 0:
            return text
        text += "\n" + fill(
            QCoreApplication.translate("ModelController", "layer %1 of %2"),
            min(done + 1, total),
            total,
        )
        elapsed = time.perf_counter() - self._forward_start
        if done > 0 and elapsed > 1.0:
            left = elapsed / done * (total - done)
        elif self._estimate >= 2.0:
            left = max(self._estimate - elapsed, 1.0)
        else:
            return text
        return (
            text
            + " · "
            + fill(QCoreApplication.translate("ModelController", "about %1 s left"), f"{left:.0f}")
        )

    def cancel(self) -> None:
        """Stop: the worker stops at its next stage or layer (a read of the weights already
        under way finishes first, and the model is dropped); its result is never shown."""
        self._generation += 1
        if self._cancelled is not None:
            self._cancelled.set()
        self._end()

    def _end(self) -> None:
        self._timer.stop()
        if self._progress is not None:
            dialog, self._progress = self._progress, None
            dialog.canceled.disconnect(self.cancel)
            dialog.reset()
            dialog.deleteLater()
        self.busy = False
        self.sigBusy.emit(False)

    def _show(self, cap, **values) -> None:
        try:
            self.state.update(**values)
        except StateError as exc:
            self._fail(str(exc))
            return
        self.last_error = ""
        text = QCoreApplication.translate(
            "ModelController", "%1: %2, %3 × %4; loaded in %5 s, sentence in %6 ms"
        )
        n, layers, heads = len(cap.tokens), cap.layer_count, cap.n_heads
        tokens = self.tr("%n token(s)", "", n)
        layers_text = self.tr("%n layer(s)", "", layers)
        heads_text = self.tr("%n head(s)", "", heads)
        text = fill(
            text, cap.name, counted(tokens, n), counted(layers_text, layers),
            counted(heads_text, heads),
            f"{self.timings.get('load', 0.0):.1f}", f"{cap.seconds * 1000:.0f}",
        )  # fmt: skip
        self.window.statusBar().showMessage(text, 10000)
        self.sigCaptured.emit(cap)

    def _fail(self, message: str) -> None:
        self.last_error = message
        self.sigFailed.emit(message)
        self.window.statusBar().showMessage(message, 10000)
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            QCoreApplication.translate("ModelController", "Open Model"),
            message,
            QMessageBox.StandardButton.Ok,
            self.window,
        )
        box.setObjectName("model_error")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # not exec(): the panels stay live behind it

    # --- the memory card ---------------------------------------------------------------
    def fill_memory_card(self) -> None:
        """Fill the memory topic's card from the open model's config.json (one undo step)."""
        path = self.state.model_path
        if not path:
            self._fail(
                QCoreApplication.translate(
                    "ModelController", "No model is open: File → Open Model…"
                )
            )
            return
        try:
            values = card_values_from_folder(path)
            self.memory.update(**values)
        except (ValueError, StateError) as exc:
            self._fail(str(exc))
            return
        self.window.statusBar().showMessage(
            QCoreApplication.translate("ModelController", "Memory card: %1").replace(
                "%1", values["name"]
            ),
            5000,
        )
