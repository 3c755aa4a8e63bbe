"""File → Train Induction Heads…: grow induction heads in a small decoder, live.

The window trains :mod:`attnviz.core.induction`'s 2-layer decoder (what ``attnviz train
induction`` trains) on the worker pool, never the GUI thread: the seed, the steps and the
output folder are asked first, with the time it should take; while it runs the loss and
the two head scores (best previous-token, best induction) with copy accuracy are drawn as
they are measured (:mod:`attnviz.ui.train_curves`), with a progress bar and the time left.
Cancel stops the run within a step and leaves no folder (the folder is written beside its
name and renamed when whole; a cancel that arrives while it is written removes it again).
Then "Open in Every Panel" opens the folder as File → Open Model… does.

The default folder is new under the user's data folder (``…/attnviz/trained/induction-
seed0-1000``, numbered when taken), so a lecturer's trained models outlive the session
and are easy to find again; the folder field takes any other.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import shiboken6
from PySide6.QtCore import QCoreApplication, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from attnviz.core import induction
from attnviz.core.work import Cancelled
from attnviz.ui.train_curves import TrainCurves
from attnviz.ui.widgets.numbers import fmt, grouped
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.workers import run_in_pool

#: How often the window takes the points measured on the worker (ms).
POLL_MS = 100
#: The sentence the trained model opens with: six of its words, repeated (what it copies).
OPEN_TEXT = "apple river stone cloud green house apple river stone cloud green house"
#: The largest seed a spin box holds (the command line takes up to 2³² − 1).
MAX_SEED = induction.MAX_SEED


def default_parent() -> Path:
    """The folder new trained models go in: ``attnviz/trained`` under the user's data
    folder, or under the temporary folder when there is none."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.GenericDataLocation)
    if not base:
        import tempfile

        base = tempfile.gettempdir()
    return Path(base) / "attnviz" / "trained"


def new_folder(parent: Path, seed: int, steps: int) -> Path:
    """``parent/induction-seedS-N``, numbered ``-2``, ``-3`` … past the names taken."""
    name = f"induction-seed{seed}-{steps}"
    path, n = parent / name, 1
    while path.exists():
        n += 1
        path = parent / f"{name}-{n}"
    return path


def one_line(exc: BaseException) -> str:
    """An exception as one line: an OSError's reason, otherwise its first line."""
    if isinstance(exc, OSError) and exc.strerror:
        text = exc.strerror + (f": {exc.filename}" if exc.filename else "")
    else:
        text = str(exc) or type(exc).__name__
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__


def _train_job(seed: int, steps: int, out: Path, stop: threading.Event, sink: list):
    """On the pool: train, append each measured ``(curve, seconds)`` to ``sink`` (read by
    the GUI thread's poll), then write ``out``; :class:`Cancelled` when ``stop`` is set."""
    result = induction.train(
        seed, steps, progress=lambda curve, s: sink.append((curve, s)), cancel=stop.is_set
    )
    if stop.is_set():
        raise Cancelled()
    written = induction.write_folder(result, out)
    if stop.is_set():  # cancelled while writing: no folder, as promised
        shutil.rmtree(written, ignore_errors=True)
        raise Cancelled()
    return written, result


class TrainDialog(QDialog):
    """The Train window (see the module docstring).

    ``open_model(path, text)`` opens a folder in every panel (the window's
    :meth:`~attnviz.ui.model_loader.ModelController.open_path`); ``runner`` runs a job
    away from the GUI thread (the pool; a test may pass its own).

    Signals
    -------
    sigFinished(object)
        A run ended: the folder written, or None (cancelled or failed).
    """

    sigFinished = Signal(object)  # Qt naming

    def __init__(self, parent=None, *, theme=None, open_model=None, runner=run_in_pool):
        super().__init__(parent)
        self.setObjectName("train_dialog")
        self.open_model = open_model
        self.runner = runner
        self.theme = theme
        self.running = False
        self.written: Path | None = None  # the folder of the last finished run
        self.curves: list = []  # the points of the run shown
        self._stop: threading.Event | None = None
        self._sink: list = []
        self._steps = 0
        self._folder_edited = False
        self._build()
        self.retranslate()
        self._refresh_folder()
        if theme is not None:
            self.apply_theme(theme)

    # --- building ------------------------------------------------------------------------
    def _build(self) -> None:
        self.seed = QSpinBox()
        self.seed.setObjectName("train_seed")
        self.seed.setRange(0, MAX_SEED)
        self.steps = QSpinBox()
        self.steps.setObjectName("train_steps")
        self.steps.setRange(1, induction.MAX_STEPS)
        self.steps.setSingleStep(100)
        self.steps.setValue(induction.DEFAULT_STEPS)
        self.steps.setGroupSeparatorShown(True)
        self.folder = QLineEdit()
        self.folder.setObjectName("train_folder")
        self.folder.textEdited.connect(self._on_q_folder_edited)
        self.browse = QPushButton()
        self.browse.setObjectName("train_browse")
        self.browse.clicked.connect(self._on_q_browse)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(self.browse)
        self.form = QFormLayout()
        self.seed_label, self.steps_label, self.folder_label = QLabel(), QLabel(), QLabel()
        self.form.addRow(self.seed_label, self.seed)
        self.form.addRow(self.steps_label, self.steps)
        self.form.addRow(self.folder_label, folder_row)
        self.estimate = QLabel()
        self.estimate.setObjectName("train_estimate")
        self.estimate.setWordWrap(True)
        self.curves_view = TrainCurves()
        self.curves_view.setMinimumHeight(200)
        self.summary = QLabel(" ")
        self.summary.setObjectName("train_summary")
        self.summary.setWordWrap(True)
        self.progress = QProgressBar()
        self.progress.setObjectName("train_progress")
        self.progress.setTextVisible(True)
        self.error = QLabel()
        self.error.setObjectName("train_error")
        self.error.setWordWrap(True)
        self.error.hide()
        self.start = QPushButton()
        self.start.setObjectName("train_start")
        self.start.setDefault(True)
        self.start.clicked.connect(self.start_training)
        self.cancel_button = QPushButton()
        self.cancel_button.setObjectName("train_cancel")
        self.cancel_button.clicked.connect(self.cancel)
        self.open_button = QPushButton()
        self.open_button.setObjectName("train_open")
        self.open_button.clicked.connect(self.open_written)
        self.close_button = QPushButton()
        self.close_button.setObjectName("train_close")
        self.close_button.clicked.connect(self.close)
        buttons = QHBoxLayout()
        buttons.addWidget(self.start)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.close_button)
        box = QVBoxLayout(self)
        box.addLayout(self.form)
        box.addWidget(self.estimate)
        box.addWidget(self.curves_view, 1)
        box.addWidget(self.summary)
        box.addWidget(self.progress)
        box.addWidget(self.error)
        box.addLayout(buttons)
        self.seed.valueChanged.connect(self._on_q_inputs_changed)
        self.steps.valueChanged.connect(self._on_q_inputs_changed)
        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self._on_q_poll)
        self.curves_view.set_run(induction.DEFAULT_STEPS, induction.chance_loss())
        self.progress.setValue(0)  # (a reset bar shows no text: "Not started" must show)
        self._set_running(False)

    def retranslate(self) -> None:
        """Texts in the language running now."""
        self.setWindowTitle(self.tr("Train Induction Heads"))
        self.seed_label.setText(self.tr("&Seed:"))
        self.seed_label.setBuddy(self.seed)
        self.seed.setToolTip(self.tr("The same seed gives the same model on the same machine"))
        self.steps_label.setText(self.tr("S&teps:"))
        self.steps_label.setBuddy(self.steps)
        self.steps.setToolTip(
            self.tr("Induction heads usually form after 500 to 700 steps; 1,000 is enough")
        )
        self.folder_label.setText(self.tr("&Folder:"))
        self.folder_label.setBuddy(self.folder)
        self.folder.setToolTip(self.tr("The new model folder (it must not exist yet)"))
        self.browse.setText(self.tr("&Browse…"))
        self.start.setText(self.tr("S&tart"))
        self.start.setToolTip(self.tr("Train on one CPU thread, away from the window"))
        self.cancel_button.setText(self.tr("&Cancel"))
        self.cancel_button.setToolTip(self.tr("Stop training; nothing is written"))
        self.open_button.setText(self.tr("&Open in Every Panel"))
        self.open_button.setToolTip(self.tr("Open the trained model as File → Open Model… does"))
        self.close_button.setText(self.tr("Close"))
        self.curves_view.label()
        self._say_estimate()
        if not self.running and not self.curves:
            self.progress.setFormat(self.tr("Not started"))

    def apply_theme(self, theme) -> None:
        """The plots in ``theme``'s colours and this window's font."""
        self.theme = theme
        self.curves_view.set_style(theme, self.font())

    # --- inputs --------------------------------------------------------------------------
    def _on_q_inputs_changed(self, _value=None) -> None:
        self._say_estimate()
        if not self.running and not self.curves:  # the empty plots span the run asked for
            self.curves_view.set_run(self.steps.value(), induction.chance_loss())
        if not self._folder_edited:
            self._refresh_folder()

    def _on_q_folder_edited(self, _text: str) -> None:
        self._folder_edited = True

    def _on_q_browse(self) -> None:
        parent = QFileDialog.getExistingDirectory(
            self, self.tr("Where the new model folder goes"), str(default_parent().parent)
        )
        if parent:
            self.folder.setText(
                str(new_folder(Path(parent), self.seed.value(), self.steps.value()))
            )
            self._folder_edited = True

    def _refresh_folder(self) -> None:
        self.folder.setText(
            str(new_folder(default_parent(), self.seed.value(), self.steps.value()))
        )

    def estimate_seconds(self) -> float:
        """Seconds the chosen steps should take (the reference machine's pace)."""
        return induction.estimate_seconds(self.steps.value())

    def _say_estimate(self) -> None:
        self.estimate.setText(
            fill(
                self.tr("%1 steps take %2 on one CPU thread; the window stays usable."),
                grouped(self.steps.value()),
                about(self.estimate_seconds()),
            )
        )

    # --- running -------------------------------------------------------------------------
    def start_training(self) -> bool:
        """Start a run with the fields' values; False (with the reason in one line) when
        the folder cannot be written or a run is under way."""
        if self.running:
            return False
        out = Path(self.folder.text().strip()).expanduser()
        if not self.folder.text().strip():
            return self._refuse(self.tr("Choose a folder for the new model"))
        if not self._folder_edited:
            try:  # the default's parent is ours to make
                out.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                return self._refuse(one_line(exc))
        problem = induction.out_problem(out)
        if problem:
            return self._refuse(fill(self.tr("%1: %2"), str(out), problem))
        self.error.hide()
        self.curves = []
        self.curves_view.set_curves([])
        self.written = None
        self._steps = self.steps.value()
        self._sink = []
        self._stop = threading.Event()
        self.progress.setRange(0, self._steps)
        self.curves_view.set_run(self._steps, induction.chance_loss())
        self.progress.setValue(0)
        self.progress.setFormat(fill(self.tr("Starting… %1"), about(self.estimate_seconds())))
        self.summary.setText(" ")
        self._set_running(True)
        seed, steps, stop, sink = self.seed.value(), self._steps, self._stop, self._sink
        self.poll.start()
        self.runner(lambda: _train_job(seed, steps, out, stop, sink), self._on_done)
        return True

    def cancel(self) -> None:
        """Stop the run under way (it ends within a step and writes nothing)."""
        if self._stop is not None:
            self._stop.set()
        if self.running:
            self.progress.setFormat(self.tr("Cancelling…"))

    def _refuse(self, message: str) -> bool:
        self.error.setText(message)
        self.error.show()
        return False

    def _set_running(self, running: bool) -> None:
        self.running = running
        for widget in (self.seed, self.steps, self.folder, self.browse, self.start):
            widget.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.open_button.setEnabled(not running and self.written is not None)

    def _on_q_poll(self) -> None:
        self._take_points()

    def _take_points(self) -> None:
        """Draw the points the worker measured since the last poll."""
        sink = self._sink
        count = len(sink)  # appended on the worker: read up to a length once
        if count == len(self.curves):
            return
        self.curves = [curve for curve, _s in sink[:count]]
        self.curves_view.set_curves(self.curves)
        last, seconds = sink[count - 1]
        self.progress.setValue(last.step)
        left = seconds / last.step * (self._steps - last.step)
        self.progress.setFormat(
            fill(
                self.tr("Step %1 of %2, %3 left"),
                grouped(last.step),
                grouped(self._steps),
                about(left),
            )
        )
        self.summary.setText(self._numbers(last))

    def _numbers(self, curve) -> str:
        return fill(
            self.tr("Loss %1 (chance %2), previous-token %3, induction %4, copy accuracy %5 %"),
            fmt(curve.loss, 3),
            fmt(induction.chance_loss(), 2),
            fmt(curve.previous_token, 2),
            fmt(curve.induction, 2),
            fmt(100 * curve.copy_accuracy, 0),
        )

    def _on_done(self, result) -> None:
        if not shiboken6.isValid(self):
            return  # the window closed while training: nothing is left to tell
        self.poll.stop()
        self._take_points()
        self._stop = None
        if isinstance(result, Cancelled):
            self._set_running(False)
            self.progress.setValue(0)
            self.progress.setFormat(self.tr("Cancelled: nothing was written"))
            self.sigFinished.emit(None)
            return
        if isinstance(result, BaseException):
            self._set_running(False)
            self.progress.setFormat(self.tr("Failed"))
            self._refuse(one_line(result))
            self.sigFinished.emit(None)
            return
        written, trained = result
        self.written = Path(written)
        self.curves = list(trained.curves)
        self.curves_view.set_curves(self.curves)
        self._set_running(False)
        self.progress.setValue(self.progress.maximum())
        change = induction.phase_change_step(self.curves)
        note = (
            fill(self.tr("induction passed 0.5 at step %1."), grouped(change))
            if change
            else self.tr("induction never passed 0.5: train longer or try another seed.")
        )
        self.progress.setFormat(
            fill(self.tr("Trained in %1 s: %2"), fmt(trained.seconds, 0), str(self.written))
        )
        self.summary.setText(self._numbers(self.curves[-1]) + "; " + note)
        if not self._folder_edited:
            self._refresh_folder()  # a second run goes in a new folder
        self.sigFinished.emit(self.written)

    def open_written(self) -> None:
        """Open the trained folder in every panel (as File → Open Model… does)."""
        if self.written is not None and self.open_model is not None:
            self.open_model(str(self.written), OPEN_TEXT)

    def closeEvent(self, event) -> None:
        self.cancel()  # a closed window's run would go on unseen
        super().closeEvent(event)

    def reject(self) -> None:
        self.cancel()
        super().reject()


def about(seconds: float) -> str:
    """``about 40 s`` or ``about 3 min``, translated."""
    if seconds < 120:
        return fill(QCoreApplication.translate("TrainDialog", "about %1 s"), f"{seconds:.0f}")
    return fill(QCoreApplication.translate("TrainDialog", "about %1 min"), f"{seconds / 60:.0f}")
