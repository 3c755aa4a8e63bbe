"""One animated export run by the app: frames drawn in slices, then encoded on the pool.

Widgets can only be drawn on the GUI thread, so the frames are drawn there, a few at a
time from a zero-interval timer (about :data:`SLICE_S` of drawing per turn, at least one
frame), and the event loop runs between the slices: the window repaints and Cancel
answers. The frames are kept as compact RGB(A) arrays; the encoding, which needs no
widget, then runs on the application's thread pool (:func:`attnviz.ui.workers.run_in_pool`)
while the GUI thread polls its progress. The job works on a workspace of its own (a copy
of the window's document), so the window's document and its undo history never see the
frames' values. A cancel (or a failure) leaves no file: :func:`attnviz.ui.animation.
write_animation` writes beside the target and renames only a complete file.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from attnviz.core.work import Cancelled
from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.workspace import Workspace
from attnviz.ui.animation import image_array, iter_frames, write_animation
from attnviz.ui.export import ExportError, ExportSpec
from attnviz.ui.workers import run_in_pool

#: Drawing time per turn of the event loop before it gets control back.
SLICE_S = 0.05
#: How often the encoder's progress is read, in milliseconds.
POLL_MS = 100


def copied_workspace(document) -> Workspace:
    """A workspace on a copy of ``document`` (no runner: results come at once)."""
    copy = Document()
    copy.restore(document.snapshot())
    return Workspace(copy)


class AnimationJob(QObject):
    """Draw ``frame_values`` of ``panel_id`` on a copy of ``document`` and write ``path``.

    ``sigProgress(done, total, stage)``: ``stage`` is ``"draw"`` or ``"encode"``.
    ``sigFinished(result)``: the written Path, or the exception that ended the job
    (:class:`~attnviz.core.work.Cancelled` after :meth:`cancel`).
    """

    sigProgress = Signal(int, int, str)
    sigFinished = Signal(object)

    def __init__(
        self,
        document,
        panel_id: str,
        frame_values: list[dict],
        spec: ExportSpec,
        path,
        fps: float,
        parent=None,
    ) -> None:
        super().__init__(parent)
        self.workspace = copied_workspace(document)
        self.panel_id, self.spec, self.path, self.fps = panel_id, spec, Path(path), fps
        self.frame_values = list(frame_values)
        self.total = len(self.frame_values)
        self.arrays: list = []
        self.result = None
        self._frames = None
        self._cancel = threading.Event()
        self._written = 0  # frames handed to the encoder (written by the pool's thread)
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._on_q_poll)

    @property
    def running(self) -> bool:
        """True from :meth:`start` until ``sigFinished``."""
        return self._frames is not None and self.result is None

    def start(self) -> None:
        """Begin drawing (on the next turn of the event loop)."""
        self._frames = iter_frames(self.workspace, self.panel_id, self.frame_values, self.spec)
        QTimer.singleShot(0, self, self._on_q_slice)

    def cancel(self) -> None:
        """Stop as soon as possible; ``sigFinished`` then carries ``Cancelled``."""
        self._cancel.set()

    def _on_q_slice(self) -> None:
        if self.result is not None:
            return
        if self._cancel.is_set():
            self._finish(Cancelled("cancelled while drawing"))
            return
        deadline = time.monotonic() + SLICE_S
        try:
            while True:
                image = next(self._frames)
                self.arrays.append(image_array(image, self.spec.transparent))
                self.sigProgress.emit(len(self.arrays), self.total, "draw")
                if time.monotonic() > deadline or self._cancel.is_set():
                    break
        except StopIteration:
            self._encode()
            return
        except (ExportError, StateError, RuntimeError, MemoryError) as exc:
            self._finish(exc)
            return
        QTimer.singleShot(0, self, self._on_q_slice)

    def _encode(self) -> None:
        arrays, path, fps = self.arrays, self.path, self.fps
        transparent, cancel = self.spec.transparent, self._cancel.is_set

        def progress(done: int, _total: int) -> None:
            self._written = done  # an int assignment: read by the GUI thread's poll

        def work():
            return write_animation(
                arrays, path, fps, transparent=transparent, progress=progress, cancel=cancel
            )

        self.sigProgress.emit(0, self.total, "encode")
        self._poll.start()
        run_in_pool(work, self._on_encoded)

    def _on_q_poll(self) -> None:
        if self.result is None:
            self.sigProgress.emit(self._written, self.total, "encode")

    def _on_encoded(self, result) -> None:
        self._poll.stop()
        self._finish(result)

    def _finish(self, result) -> None:
        if self.result is not None:
            return
        self.result = result
        if self._frames is not None:
            self._frames.close()  # puts the copy back as it was; nothing else to undo
        self.arrays = []
        self.sigFinished.emit(result)
