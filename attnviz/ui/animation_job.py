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

The ``overview`` panel's map takes seconds to minutes (a long sequence): before a frame
whose map is not ready is drawn, the map is computed on the pool
(:func:`~attnviz.model.resolve.long.run_overview`, which polls the job's cancel flag
between tiles) and handed to the copy's long resolver, where the frame's panel finds it
(:func:`attnviz.model.sweep_work.frame_overviews` says beforehand which map each frame
draws). One map is held at a time, as when the frames computed their own.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from attnviz.core.work import Cancelled
from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.resolve.long import run_overview
from attnviz.model.sweep_work import frame_overviews
from attnviz.model.workspace import Workspace
from attnviz.ui.animation import image_array, iter_frames, write_animation
from attnviz.ui.export import ExportError, ExportSpec
from attnviz.ui.workers import run_in_pool

#: Drawing time per turn of the event loop before it gets control back.
SLICE_S = 0.05
#: How often the progress of the encoder (or of a map) is read, in milliseconds.
POLL_MS = 100


def copied_workspace(document) -> Workspace:
    """A workspace on a copy of ``document`` (no runner: results come at once)."""
    copy = Document()
    copy.restore(document.snapshot())
    return Workspace(copy)


class AnimationJob(QObject):
    """Draw ``frame_values`` of ``panel_id`` on a copy of ``document`` and write ``path``.

    ``sigProgress(done, total, stage)``: ``stage`` is ``"draw"`` or ``"encode"`` (frames),
    or ``"map"``: map ``done`` of ``total`` is being computed (:attr:`map_fraction` of it).
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
        #: The overview's map of each frame (None for other panels), and the maps to compute.
        self._overviews: list | None = None
        self.map_total = 0
        self._map_index = 0
        #: How far the map being computed has come (0…1; written by the pool's thread).
        self.map_fraction = 0.0
        self._stage = "draw"
        self._poll = QTimer(self)
        self._poll.setInterval(POLL_MS)
        self._poll.timeout.connect(self._on_q_poll)

    @property
    def running(self) -> bool:
        """True from :meth:`start` until ``sigFinished``."""
        return self._frames is not None and self.result is None

    def start(self) -> None:
        """Begin (on the next turn of the event loop): the first map, or the first frames."""
        self._frames = iter_frames(self.workspace, self.panel_id, self.frame_values, self.spec)
        if self.panel_id == "overview":
            try:
                self._overviews = frame_overviews(self.workspace, self.frame_values)
            except StateError as exc:
                self._finish(ExportError(str(exc)))
                return
            keys = [res.key for res in self._overviews]
            # The copy keeps one map: a frame whose map differs from the last one's needs its own.
            self.map_total = sum(i == 0 or key != keys[i - 1] for i, key in enumerate(keys))
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
                if self._map_missing():
                    self._compute_map()
                    return
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

    def _map_missing(self) -> bool:
        """True when the next frame draws an overview map that is not ready."""
        i = len(self.arrays)
        if self._overviews is None or i >= self.total:
            return False
        resolver = self.workspace.resolver_for("long")
        return resolver.cached_overview(self._overviews[i].key) is None

    def _compute_map(self) -> None:
        res = self._overviews[len(self.arrays)]
        values, source, cancel = dict(res.values), res.source, self._cancel
        self._map_index = min(self._map_index + 1, self.map_total)
        self.map_fraction = 0.0

        def progress(fraction: float) -> None:
            self.map_fraction = fraction  # a float store: read by the GUI thread's poll

        def work():
            return run_overview(values, progress, cancel, source)

        self._stage = "map"
        self.sigProgress.emit(self._map_index, self.map_total, "map")
        self._poll.start()
        run_in_pool(work, lambda result: self._on_map(res.key, result))

    def _on_map(self, key, result) -> None:
        self._poll.stop()
        if isinstance(result, BaseException):
            self._finish(result)  # Cancelled when the cancel flag stopped it
            return
        self.workspace.resolver_for("long").map_work.keep(key, result)
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

        self._stage = "encode"
        self.sigProgress.emit(0, self.total, "encode")
        self._poll.start()
        run_in_pool(work, self._on_encoded)

    def _on_q_poll(self) -> None:
        if self.result is not None:
            return
        if self._stage == "map":
            self.sigProgress.emit(self._map_index, self.map_total, "map")
        else:
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
