"""The prediction panel's ablation map: its figure, its Compute / Cancel and its progress.

Layers × heads of Δ log p(target) with that one head zero-ablated, computed on the worker
pool (in place when the panel is its own window, an offscreen export), started at once when
it is estimated to be quick and otherwise waiting for its button with the cost said first.
A click on a cell switches that head off, or on again.

:class:`AblationMapMixin` is a part of :class:`~attnviz.ui.panels.prediction.PredictionPanel`
only: it uses the panel's ``resolver``, ``state``, ``results``, ``_write``, ``hover`` and
``sigHoverText``. Its strings are translated in the panel's context ("PredictionPanel"), so
the move out of the panel's module left their translations as they were.
"""

from __future__ import annotations

import math
import re

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QTimer
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QProgressBar, QPushButton

from attnviz.core.work import Cancelled
from attnviz.ui.panel_base import figure_box
from attnviz.ui.widgets.ablation_map_view import AblationMapView
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill

#: A map estimated to take longer than this (seconds) waits for its Compute button.
AUTO_SECONDS = 3.0
#: How often the map's progress bar follows it (ms).
POLL_MS = 100
#: The map's values, as its box names them (the field ``prediction.map_value``).
MAP_VALUE_NAMES = {
    "logp": QT_TRANSLATE_NOOP("PredictionPanel", "Δ log p(target)"),
    "copying": QT_TRANSLATE_NOOP("PredictionPanel", "Δ copy accuracy"),
}
#: A failure message's leading exception name ("PredictionError: …"): the line says it all.
EXCEPTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(Error|Exception|Refused): ")


class AblationMapMixin:
    """The ablation map's widgets and their updates, mixed into the prediction panel."""

    def _build_map(self):
        self.map_key = None  # the inputs of the map drawn
        self.map_estimate = 0.0  # seconds the current inputs' map was estimated to take
        self.map_view = AblationMapView()
        self.map_view.setMinimumHeight(160)
        self.map_view.sigClicked.connect(self._on_q_map_click)
        self.map_view.sigHover.connect(self._on_q_map_hover)
        self.map_note = QLabel(" ")
        self.map_note.setObjectName("map_note")
        self.map_note.setWordWrap(True)
        self.map_progress = QProgressBar()
        self.map_progress.setObjectName("map_progress")
        self.map_progress.setRange(0, 1000)
        self.map_progress.setTextVisible(True)
        self.map_run = QPushButton(QCoreApplication.translate("PredictionPanel", "Compute the map"))
        self.map_run.setObjectName("map_run")
        self.map_run.clicked.connect(self._on_q_map_run)
        self.map_value = QComboBox()
        self.map_value.setObjectName("map_value")
        for name, text in MAP_VALUE_NAMES.items():
            self.map_value.addItem(QCoreApplication.translate("PredictionPanel", text), name)
        self.map_value.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel",
                "What a cell says with its head switched off: the change of log p(target), or "
                "the change of copy accuracy on the sentence's repeats (the share of tokens "
                "that follow an earlier occurrence's next token and that the model gets)",
            )
        )
        self.map_value.currentIndexChanged.connect(
            lambda _i: self._write(self.map_value, map_value=self.map_value.currentData())
        )
        self.mirror("map_value", self.map_value)
        row = QHBoxLayout()
        row.addWidget(self.map_progress, 1)
        row.addWidget(self.map_value)
        row.addWidget(self.map_run)
        self.map_figure = figure_box(self.map_view, self.map_note)
        self.map_figure.setObjectName("map_figure")
        box = figure_box(self.map_figure)
        box.layout().addLayout(row)
        box.layout().addStretch(1)
        self.poll = QTimer(self)
        self.poll.setInterval(POLL_MS)
        self.poll.timeout.connect(self._on_q_poll)
        bind(self, self.resolver.map_ready, self._on_map_ready)
        bind(self, self.resolver.map_failed, self._on_map_failed)
        self._map_idle(QCoreApplication.translate("PredictionPanel", "Not computed"))
        return box

    def _is_synchronous(self) -> bool:
        """A panel that is its own window (an offscreen export) computes in place."""
        return self.window() is self

    def _update_map(self, res) -> None:
        key = self.resolver.map_key()
        if key == self.map_key:
            return
        kept = self.resolver.cached_map(key)
        if kept is not None:
            self._show_map(key, kept)
            return
        self.map_view.clear_map()
        self.map_key = None
        self.map_estimate = self.resolver.map_seconds(res)
        if self.resolver.map_work.wanted_key == key:
            return  # on its way
        if self.resolver.map_running:
            self.resolver.cancel_map()  # an older sentence's or target's
        if self.map_estimate <= AUTO_SECONDS:
            self._start_map()
        else:
            self._map_idle(QCoreApplication.translate("PredictionPanel", "Not computed"))
            self.map_note.setText(
                fill(
                    QCoreApplication.translate(
                        "PredictionPanel",
                        "The ablation map switches each of the %1 heads off in turn: about "
                        "%2 s on this machine. Press Compute the map.",
                    ),
                    sum(res.heads),
                    f"{self.map_estimate:.0f}",
                )
            )

    def _start_map(self) -> None:
        self.map_run.setText(QCoreApplication.translate("PredictionPanel", "Cancel"))
        self.map_run.setToolTip(QCoreApplication.translate("PredictionPanel", "Stop the map (Esc)"))
        self._on_q_map_progress(0.0)
        if self.map_estimate > AUTO_SECONDS:
            self.map_note.setText(
                fill(
                    QCoreApplication.translate("PredictionPanel", "Computing the map: about %1 s."),
                    f"{self.map_estimate:.0f}",
                )
            )
        else:
            self.map_note.setText(
                QCoreApplication.translate("PredictionPanel", "Computing the map…")
            )
        now = self._is_synchronous()
        if not now:
            self.poll.start()
        found = self.resolver.request_map(now=now)
        if found is not None:
            self._show_map(self.resolver.map_key(), found)

    def _on_q_map_run(self) -> None:
        if self.resolver.map_running:
            self.resolver.cancel_map()
        elif self.results is not None:
            self.map_key = None
            self._start_map()

    def _on_q_poll(self) -> None:
        if not self.resolver.map_running:
            self.poll.stop()
            return
        self._on_q_map_progress(self.resolver.map_progress)

    def _on_q_map_progress(self, fraction: float) -> None:
        self.map_progress.setValue(round(1000 * fraction))
        self.map_progress.setFormat(
            fill(
                QCoreApplication.translate("PredictionPanel", "Computing the map… %1%"),
                math.floor(100 * fraction),
            )
        )

    def _map_idle(self, status: str) -> None:
        self.map_run.setText(QCoreApplication.translate("PredictionPanel", "Compute the map"))
        self.map_run.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel",
                "Switch each head off alone and measure the target's log-probability",
            )
        )
        self.map_progress.setValue(0)
        self.map_progress.setFormat(status)

    def _clear_map(self, note: str) -> None:
        self.poll.stop()
        self.map_key = None
        self.map_view.clear_map()
        self._map_idle(QCoreApplication.translate("PredictionPanel", "Not computed"))
        self.map_note.setText(note)

    def _on_map_ready(self, key, found) -> None:
        if key != self.resolver.map_key():
            return  # asked for older inputs
        self._show_map(key, found)

    def _on_map_failed(self, key, exc) -> None:
        self.poll.stop()
        if isinstance(exc, Cancelled):
            if self.map_key is None:
                self._map_idle(QCoreApplication.translate("PredictionPanel", "Cancelled"))
                self.map_note.setText(
                    QCoreApplication.translate(
                        "PredictionPanel", "The map was cancelled: press Compute the map."
                    )
                )
            return
        if key != self.resolver.map_key():
            return
        self._clear_map(EXCEPTION_NAME.sub("", f"{type(exc).__name__}: {exc}", count=1))

    def _on_map_value_changed(self) -> None:
        if self.map_key is not None:
            found = self.resolver.cached_map(self.map_key)
            if found is not None:
                self._show_map(self.map_key, found)

    def _show_map(self, key, found) -> None:
        self.poll.stop()
        self.map_key = key
        self.map_progress.setValue(1000)
        self.map_progress.setFormat(QCoreApplication.translate("PredictionPanel", "Map ready"))
        self.map_run.setText(QCoreApplication.translate("PredictionPanel", "Compute the map"))
        self.map_run.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel", "The map of the current sentence, position and target"
            )
        )
        if self.state.map_value == "copying":
            self._show_copying(found)
        else:
            self._show_logp(found)
        self.map_view.set_marked(self.state.ablate)

    def _show_logp(self, found) -> None:
        self.map_view.set_map(
            found.values, found.target_token, found.clean_logp, found.copying, found.copy_count
        )
        self.map_view.set_title(
            fill(
                QCoreApplication.translate(
                    "PredictionPanel", "Δ log p(★“%1”) with one head zero-ablated: layers × heads"
                ),
                found.target_token,
            )
        )
        finite = np.isfinite(found.values)
        note = fill(
            QCoreApplication.translate(
                "PredictionPanel",
                "p(★“%1”) = %2 clean in the model's own distribution (temperature 1, nothing "
                "filtered); blue: switching the head off lowers it, red: raises it. Click a "
                "head to switch it off or on.",
            ),
            found.target_token,
            fmt(math.exp(found.clean_logp), 4),
        )
        if not finite.all():
            note += " " + QCoreApplication.translate(
                "PredictionPanel", "Hatched: not softmax attention."
            )
        if found.copy_count:
            note += " " + _copy_note(found)
        self.map_note.setText(note)

    def _show_copying(self, found) -> None:
        if not found.copy_count:
            self.map_view.clear_map()
            self.map_note.setText(
                QCoreApplication.translate(
                    "PredictionPanel",
                    "No token of this sentence can be copied from an earlier occurrence: "
                    "repeat part of it (a list said twice) to measure copying.",
                )
            )
            return
        self.map_view.set_copying(found.copying, found.copy_clean, found.copy_count)
        self.map_view.set_title(
            QCoreApplication.translate(
                "PredictionPanel", "Δ copy accuracy with one head zero-ablated: layers × heads"
            )
        )
        note = (
            _copy_note(found)
            + " "
            + QCoreApplication.translate(
                "PredictionPanel",
                "Blue: switching the head off breaks copies. Click a head to switch it off or on.",
            )
        )
        if not np.isfinite(found.values).all():
            note += " " + QCoreApplication.translate(
                "PredictionPanel", "Hatched: not softmax attention."
            )
        self.map_note.setText(note)

    def _on_q_map_click(self, layer: int, head: int) -> None:
        pair = (int(layer), int(head))
        heads = tuple(self.state.ablate)
        if pair in heads:
            self._write(self.map_view, ablate=tuple(p for p in heads if p != pair))
        else:
            self._write(self.map_view, ablate=(*heads, pair))

    def _on_q_map_hover(self, row: int, col: int) -> None:
        text = self.map_view.hover_text(row, col) if row >= 0 else ""
        self.hover.setText(text or " ")
        self.sigHoverText.emit(text)


def _copy_note(found) -> str:
    """What the map says of copying: the sentence repeats, so some next tokens can be
    copied from what followed an earlier occurrence; how many the model gets clean, and
    with the head that hurts copying most switched off."""
    text = fill(
        QCoreApplication.translate(
            "PredictionPanel",
            "Copying: the most likely next token continues the repeat at %1 of its %2 "
            "copyable tokens (%3).",
        ),
        round(found.copy_clean * found.copy_count),
        found.copy_count,
        fmt(found.copy_clean, 4),
    )
    known = np.isfinite(found.copying)
    if not known.any():
        return text
    layer, head = np.unravel_index(
        int(np.argmin(np.where(known, found.copying, np.inf))), found.copying.shape
    )
    worst = float(found.copying[layer, head])
    return (
        text
        + " "
        + fill(
            QCoreApplication.translate(
                "PredictionPanel",
                "With layer %1's head %2 off: %3 (%4), the most any one head costs; hover a "
                "head for its own.",
            ),
            layer,
            head,
            round(worst * found.copy_count),
            fmt(worst, 4),
        )
    )
