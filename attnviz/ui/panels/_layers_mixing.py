"""The layers panel's rows of a hybrid's other layers: their mixing matrices, on a worker
(:class:`LayersMixingMixin`, mixed into :class:`~attnviz.ui.panels.layers.LayersPanel`).

A Gated DeltaNet, Mamba-2 or short-convolution layer is drawn as its mixing matrices M
(:func:`attnviz.model.layer_mixing.model_mixing`: one pass of the sentence, then each head's
M proven against the model's own kernel output). That takes a pass and an n × n matrix per
head, so it runs on the pool (latest wins: a new sentence cancels it), the caption says
so with its progress, and the rows show their kind until the matrices arrive.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QTimer

from attnviz.model.layer_mixing import mixing_layers, model_mixing
from attnviz.model.resolve.work import LatestWork
from attnviz.ui import compare_view as _compare
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.workers import run_in_pool


class LayersMixingMixin:
    """Requests, progress and the answer of the grid's mixing matrices."""

    def _init_mixing(self) -> None:
        self._mixing_line = ""  # the caption's line while the matrices are on their way
        self._mixing_said = ""  # that line without its percentage
        # On the pool in the window; in place where the workspace has no runner (an
        # export, a notebook: the picture must hold the matrices, not their progress).
        runner = run_in_pool if self.workspace.runner is not None else None
        self._mixing_work = LatestWork(self._on_mixing, runner, replace="cancel", cache_size=4)
        self._mixing_timer = QTimer(self)
        self._mixing_timer.setInterval(200)
        self._mixing_timer.timeout.connect(self._on_mixing_poll)

    def _request_mixing(self, cap) -> None:
        """Ask for the mixing matrices of ``cap``'s other layers (none: nothing to do)."""
        self._mixing_work.cancel()
        self._mixing_timer.stop()
        self._mixing_line = ""
        if (
            cap is None
            or not mixing_layers(cap)
            or _compare.compare_mode(self.workspace) != "clean"
        ):
            return
        s = self.state
        path, text = s.model_path, s.model_text
        key = (path, text, id(cap))

        def job(progress, cancel):
            return model_mixing(path, text, progress=progress, cancel=cancel.is_set)

        count = len(mixing_layers(cap))
        self._mixing_line = self._mixing_said = fill(
            QCoreApplication.translate(
                "LayersMixing",
                "Proving the mixing matrices of %1 other layers against the model's kernel…",
            ),
            count,
        )
        if not self._mixing_work.request(key, job):
            self._mixing_timer.start()

    def _on_mixing_poll(self) -> None:
        if not self._mixing_work.pending:
            self._mixing_timer.stop()
            return
        percent = round(100 * self._mixing_work.progress)
        self._mixing_line = f"{self._mixing_said} ({percent} %)"
        if self._capture is not None:
            self._write_caption(self._capture)

    def _on_mixing(self, key, result) -> None:
        self._mixing_timer.stop()
        self._mixing_line = ""
        cap = self._capture
        if cap is None or key[2] != id(cap):
            return  # another sentence since
        if isinstance(result, Exception):  # a model that cannot run the pass: one line
            self._mixing_line = str(result).splitlines()[0]
        else:
            self.grid.set_mixing(result, _compare.diverging_lut())
        self._write_caption(cap)
