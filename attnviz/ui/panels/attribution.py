"""The attribution panel: why the head shown attends where it does.

*Split by pair*: the selected query's scaled score on each key split into the terms of
its rotary pairs, ``scale · (q_a k_a + q_b k_b)`` (keys × pairs, fastest pair first, each
column headed by its period in tokens, Σ the score), beside RoPE's clock dial with the
query's and the key's hands. A fast pair turns a lot from one token to the next, so its
term tells where a key is; a slow one barely turns over a sentence, so its term tells what
the key holds: a previous-token head lives in its fast pairs, a content head in its slow
ones (the presets ``previous-token-head`` and ``content-head``).

*Query–key map*: the head's queries and keys in two dimensions (``_attribution_map``), of
the text shown and of the extra sentences ``attention.qk_sentences`` run through the real
model shown, by PCA or UMAP (``attention.qk_projection``; UMAP where its extra is
installed), coloured as ``attention.qk_colour`` says. A map that may take long (sentences
through the model, UMAP, a long text) is computed on a worker, and says so first.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from attnviz.core.qk_embed import UMAP_INSTALL, umap_installed
from attnviz.core.work import Cancelled
from attnviz.model.resolve.attribution import attribution
from attnviz.model.resolve.qk_map import UMAP_SEED, compute_map, map_inputs
from attnviz.model.resolve.result_names import ATTENTION, MASK, STEPS
from attnviz.model.resolve.work import LatestWork
from attnviz.ui.panel_base import FigurePanel
from attnviz.ui.panels._attribution_map import QKMap
from attnviz.ui.widgets.clock_dial import ClockDial, format_wavelength
from attnviz.ui.widgets.figure_theme import style_figure
from attnviz.ui.widgets.matrix_view import MatrixView
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.workers import run_in_pool

#: At most this many keys are drawn (the largest scores, in their order); the export
#: writes them all.
MAX_KEYS = 24
#: Tabs of the figure.
SPLIT, MAP = 0, 1
#: How often the note of a map on a worker shows its progress (ms).
PROGRESS_MS = 250


class AttributionPanel(FigurePanel):
    """The selected query's scores split by rotary pair, and the query–key map."""

    PANEL_ID = "attribution"

    def __init__(self, workspace, parent=None) -> None:
        super().__init__(workspace, parent)
        self.att = None  # the drawn split (model.resolve.attribution.Attribution)
        self.shown_keys = np.zeros(0, int)  # the key of each drawn row
        self.proj = None  # the drawn map (model.resolve.qk_map.QKMapData)
        self._map_key = None  # the inputs of the map drawn or on its way
        # In place where the workspace has no runner (an export: its picture is the map).
        runner = run_in_pool if workspace.runner is not None else None
        self.map_work = LatestWork(self._on_map_answer, runner, cache_size=2, replace="cancel")
        self._progress = QTimer(self)
        self._progress.setInterval(PROGRESS_MS)
        self._progress.timeout.connect(self._on_progress)
        self._working = ""
        self.tabs = QTabBar()
        self.tabs.setObjectName("attribution_tabs")
        self.tabs.addTab(self.tr("Split by rotary pair"))
        self.tabs.addTab(self.tr("Query–key map"))
        self.tabs.currentChanged.connect(self._on_q_tab)
        self.map_controls = self._build_map_controls()
        self.map_controls.setVisible(False)
        # Whole tab names, never scroll arrows; the map's controls on rows of their own
        # (beside the tabs they squeezed them in a narrow dock).
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        top = QVBoxLayout()
        tabs_row = QHBoxLayout()
        tabs_row.addWidget(self.tabs)
        tabs_row.addStretch(1)
        top.addLayout(tabs_row)
        top.addWidget(self.map_controls)
        self.figure = QStackedWidget()
        self.figure.addWidget(self._build_split())
        self.figure.addWidget(self._build_map())
        self.hover = QLabel(" ")
        self.hover.setObjectName("hover")
        self.hover.setWordWrap(True)
        layout = QVBoxLayout()
        layout.addLayout(top)
        layout.addWidget(self.figure, 1)
        layout.addWidget(self.hover)
        # Set explicitly: a figure's style sheet stops the stage's font (Large Fonts) from
        # reaching its lines, which a slide then drew in the window's small type.
        for label in (self.summary, self.map_summary, self.no_rope):
            self.scale_font(label, 1.0)
        self._finish(layout)

    def _build_split(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.matrix = MatrixView("T")
        self.matrix.setObjectName("terms")
        self.matrix.WRAP_TITLE = True  # the title names a token: wrap it, never cut it
        self.matrix.setMinimumSize(200, 160)
        self.matrix.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        self.matrix.sigHover.connect(self._on_cell)
        self.dial = ClockDial()
        self.dial.setObjectName("clock_dial")
        self.dial.set_height_for_width(False)
        self.dial.setMinimumWidth(150)
        self.no_rope = QLabel()
        self.no_rope.setObjectName("no_rope")
        self.no_rope.setWordWrap(True)
        self.no_rope.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.no_rope.setText(
            self.tr(
                "This head turns no pair (RoPE off, or a model without it): the columns are "
                "pairs of dimensions as they are, and no clock turns them."
            )
        )
        row.addWidget(self.matrix, 3)
        row.addWidget(self.dial, 2)
        row.addWidget(self.no_rope, 2)
        box.addLayout(row, 1)
        self.summary = QLabel()
        self.summary.setObjectName("summary")
        self.summary.setWordWrap(True)
        box.addWidget(self.summary)
        return page

    def _build_map_controls(self) -> QWidget:
        box = QWidget()
        rows = QVBoxLayout(box)
        rows.setContentsMargins(0, 0, 0, 0)
        choices = QHBoxLayout()
        self.projection = QComboBox()
        self.projection.setObjectName("qk_projection")
        self.projection.addItem(self.tr("PCA (a plane through the origin)"), "pca")
        self.projection.addItem(self.tr("UMAP (neighbours by angle)"), "umap")
        if not umap_installed():
            # Shown, not hidden: the choice exists, and the tooltip says how to get it.
            item = self.projection.model().item(1)
            item.setEnabled(False)
            item.setToolTip(fill(self.tr("UMAP is not installed: %1"), UMAP_INSTALL))
        self.projection.currentIndexChanged.connect(self._on_q_projection)
        self.mirror("qk_projection", self.projection)
        self.colour = QComboBox()
        self.colour.setObjectName("colour_by")
        self.colour.addItem(self.tr("colour by position"), "position")
        self.colour.addItem(self.tr("colour by token"), "token")
        self.colour.addItem(self.tr("colour by sentence"), "sentence")
        self.colour.currentIndexChanged.connect(self._on_q_colour)
        self.mirror("qk_colour", self.colour)
        choices.addWidget(self.projection)
        choices.addWidget(self.colour)
        choices.addStretch(1)
        rows.addLayout(choices)
        # Only a real model runs sentences: the row is there while a model's head is shown.
        self.sentences_row = QWidget()
        sentences = QHBoxLayout(self.sentences_row)
        sentences.setContentsMargins(0, 0, 0, 0)
        self.sentences = QPlainTextEdit()
        self.sentences.setObjectName("qk_sentences")
        self.sentences.setPlaceholderText(
            self.tr("More sentences, one a line: run through the model shown, drawn with its text")
        )
        self.sentences.setTabChangesFocus(True)
        line = self.sentences.fontMetrics().lineSpacing()
        self.sentences.setFixedHeight(3 * line + 14)
        self.project = QPushButton(self.tr("Project"))
        self.project.setObjectName("project_sentences")
        self.project.setToolTip(self.tr("Run these sentences through the model and draw them"))
        self.project.clicked.connect(self._on_q_project)
        sentences.addWidget(self.sentences, 1)
        sentences.addWidget(self.project, 0, Qt.AlignmentFlag.AlignTop)
        rows.addWidget(self.sentences_row)
        self.sentences_row.setVisible(self.workspace.state.head == "model")
        return box

    def _build_map(self) -> QWidget:
        page = QWidget()
        box = QVBoxLayout(page)
        box.setContentsMargins(0, 0, 0, 0)
        self.map = QKMap()
        self.map.setMinimumSize(200, 160)
        self.map.scene().sigMouseMoved.connect(self._on_q_map_mouse)
        box.addWidget(self.map, 1)
        self.map_summary = QLabel()
        self.map_summary.setObjectName("map_summary")
        self.map_summary.setWordWrap(True)
        box.addWidget(self.map_summary)
        return page

    # --- results → view ----------------------------------------------------------------
    def _on_results(self, results, names: frozenset) -> None:
        if not names & {ATTENTION, MASK, STEPS}:
            return  # a colour map or matrix choice: the same numbers
        self.att = attribution(self.workspace)
        self._draw_split()
        if names & {ATTENTION}:
            self._request_map()
        self._draw_map()

    def _request_map(self) -> None:
        """Compute the map of the current inputs: here when it is quick, else on a worker
        (saying so first, then its progress). Only while the map's tab is seen: a UMAP or
        a model's sentences are not run for a picture nobody sees (a dock behind another
        asks when it is raised)."""
        if self.tabs.currentIndex() != MAP or not self.isVisible():
            return  # computed when the map is seen (the tab, showEvent)
        inputs = map_inputs(self.workspace)
        key = inputs.key
        if key == self._map_key:
            return  # drawn, or on its way
        self._map_key = key
        if not inputs.slow:
            self.map_work.cancel()
            self._stop_progress()
            try:
                data = compute_map(inputs)
            except ValueError as exc:
                self._map_failed(exc)
                return
            self._map_done(data)
            return
        self._working = self._working_text(inputs)
        if not self.map_work.request(
            key, lambda progress, cancel: compute_map(inputs, progress, cancel)
        ):
            self.map_summary.setText(self._working)
            self._progress.start()

    def _working_text(self, inputs) -> str:
        if inputs.extra:
            text = fill(
                self.tr("Running %1 more sentences through the model, then projecting…"),
                len(inputs.extra),
            )
        else:
            text = fill(self.tr("Projecting %1 queries and keys…"), inputs.rows)
        if inputs.method == "umap":
            text += " " + self.tr("UMAP takes seconds (the first time, more: it compiles).")
        return text

    def _on_progress(self) -> None:
        if not self.map_work.pending:
            self._stop_progress()
            return
        self.map_summary.setText(
            fill(self.tr("%1 (%2 %)"), self._working, fmt(100 * self.map_work.progress, 0))
        )

    def _stop_progress(self) -> None:
        self._progress.stop()

    def _on_map_answer(self, key, result) -> None:
        self._stop_progress()
        if key != self._map_key:
            return  # inputs changed since: their own request is on its way
        if isinstance(result, Cancelled):
            return
        if isinstance(result, Exception):
            self._map_failed(result)
            return
        self._map_done(result)

    def _map_done(self, data) -> None:
        self.proj = data
        self._draw_map()

    def _map_failed(self, exc: Exception) -> None:
        # A map that cannot be drawn (UMAP of a few points, a sentence the model refuses)
        # says why in one line where the map's caption goes.
        self.proj = None
        self.map.clear_map()
        self.map_summary.setText(str(exc).strip().splitlines()[0] if str(exc).strip() else "")

    def _keys_drawn(self) -> np.ndarray:
        att = self.att
        n = att.scores.shape[0]
        if n <= MAX_KEYS:
            return np.arange(n)
        ranked = np.where(att.allowed, att.scores, -np.inf)
        return np.sort(np.argsort(-ranked, kind="stable")[:MAX_KEYS])

    def _draw_split(self) -> None:
        att = self.att
        if att is None:
            return
        keys = self._keys_drawn()
        self.shown_keys = keys
        periods = att.periods
        cols = [format_wavelength(p) if np.isfinite(p) else "—" for p in periods]
        allowed = np.broadcast_to(att.allowed[keys, None], (keys.size, att.terms.shape[1]))
        self.matrix.set_matrix(
            att.terms[keys],
            allowed=allowed,
            rows=[att.keys[j] for j in keys],
            columns=cols,
            row_sums=att.scores[keys],
        )
        self.matrix.set_title(
            fill(self.tr("“%1”: its score per pair, tokens per turn fast → slow"), att.token)
        )
        turns = att.inv_freq.size > 0
        self.dial.setVisible(turns)
        self.no_rope.setVisible(not turns)
        top = self._top_key()
        if turns:
            self.dial.set_frequencies(att.inv_freq)
            self.dial.set_positions(att.query, top if top is not None else att.query)
        self.summary.setText(self._summary(top, keys.size))

    def _top_key(self) -> int | None:
        return self.att.top_key()

    def _summary(self, top: int | None, drawn: int) -> str:
        att = self.att
        if top is None:
            return fill(self.tr("“%1” may see no key."), att.token)
        share = att.top_fast_share()
        weights = self.workspace.resolver.results.steps.weights
        weight = float(weights[top]) if top < weights.shape[0] else float("nan")
        text = fill(
            self.tr(
                "“%1” reads “%2” most (weight %3, score %4): %5 % of that score's terms, "
                "by size, lie in the fastest half of the pairs."
            ),
            att.token,
            att.keys[top],
            fmt(weight, 2),
            fmt(float(att.scores[top]), 2),
            fmt(100 * share, 0) if np.isfinite(share) else "—",
        )
        if drawn < att.scores.shape[0]:
            text += " " + fill(
                self.tr("Drawn: the %1 keys of largest score of %2."), drawn, att.scores.shape[0]
            )
        return text

    def _draw_map(self) -> None:
        if self.proj is None or self.att is None:
            return
        data = self.proj
        top = self._top_key()
        shown = data.shown == self.att.scores.shape[0]  # the map is of the text shown
        query = self.att.query if shown else -1
        self.map.set_map(data, query, self.workspace.state.qk_colour, top if shown else None)
        if self.map_work.pending:
            # The map drawn is the last one; the caption says what is on its way.
            self.map_summary.setText(self._working)
            return
        self.map_summary.setText(self._map_text(data, top if shown else None))

    def _map_text(self, data, top: int | None) -> str:
        parts = []
        if data.many:
            parts.append(
                fill(
                    self.tr("The text shown and %1 more sentences: %2 queries and %2 keys."),
                    len(data.texts) - 1,
                    data.queries.shape[0],
                )
            )
        if data.method == "umap":
            parts.append(
                fill(
                    self.tr(
                        "UMAP (seed %1) keeps which rows point alike (cosine neighbours), "
                        "the keys moved to the queries' mean (no query's weights change); "
                        "distances here are not dot products. Ringed: the query of “%2” and "
                        "the key it reads most."
                    ),
                    UMAP_SEED,
                    self.att.token,
                )
            )
        else:
            parts.append(
                fill(
                    self.tr(
                        "The plane holds %1 % of the rows' squared length. The arrow is the "
                        "query of “%2”: a key's score with it is how far the key reaches along "
                        "the arrow."
                    ),
                    fmt(100 * data.kept, 1),
                    self.att.token,
                )
            )
            if top is not None:
                q, k = data.queries[self.att.query], data.keys[top]
                parts.append(
                    fill(
                        self.tr(
                            "It reaches furthest to “%1”: q·k = %2 in the plane, %3 in the head."
                        ),
                        self.att.keys[top],
                        fmt(float(k @ q), 3),
                        fmt(float(self.att.scores[top] / self.att.scale), 3),
                    )
                )
                parts.append(self._why(top))
        if data.note:
            parts.append(QCoreApplication.translate("QKMap", data.note))
        return " ".join(p for p in parts if p)

    def _why(self, top: int) -> str:
        """Why the query reads the key: q·k = |q| |k| cos of their angle, in the head."""
        res = self.workspace.resolver.results
        q = np.asarray(res.q[self.att.query], np.float64)
        k = np.asarray(res.k[top], np.float64)
        nq, nk = float(np.linalg.norm(q)), float(np.linalg.norm(k))
        if nq == 0 or nk == 0:
            return ""
        return fill(
            self.tr("Why: q·k = |q| |k| cos = %1 × %2 × %3 (the angle between them %4°)."),
            fmt(nq, 3),
            fmt(nk, 3),
            fmt(float(q @ k) / (nq * nk), 3),
            fmt(float(np.degrees(np.arccos(np.clip(q @ k / (nq * nk), -1, 1)))), 1),
        )

    # --- the mouse ----------------------------------------------------------------------
    def _on_cell(self, row: int, col: int) -> None:
        att = self.att
        if att is None or not 0 <= row < self.shown_keys.size:
            self._say("")
            return
        j = int(self.shown_keys[row])
        if self.dial.isVisible():
            self.dial.set_positions(att.query, j)
        if col >= att.terms.shape[1]:
            self._say(
                fill(
                    self.tr("key “%1”: score %2, the sum of its %3 terms"),
                    att.keys[j],
                    fmt(float(att.scores[j]), 4),
                    att.terms.shape[1],
                )
            )
            return
        label = att.column_labels()[col]
        period = att.periods[col]
        self._say(
            fill(
                self.tr("key “%1”, dimensions %2 (period %3 tokens): term %4 of score %5"),
                att.keys[j],
                label,
                fmt(float(period), 1) if np.isfinite(period) else "—",
                fmt(float(att.terms[j, col]), 4),
                fmt(float(att.scores[j]), 4),
            )
        )

    def _on_q_map_mouse(self, pos) -> None:
        if self.proj is None or self.att is None:
            return
        view = self.map.getPlotItem().vb.mapSceneToView(pos)
        found = self.map.point_at(view.x(), view.y())
        if found is None:
            self._say("")
            return
        kind, row = found
        score = None
        n = self.att.scores.shape[0]
        # A key of the text shown has a score with the selected query; another sentence's
        # key is never seen by it.
        if kind == "key" and row < n and self.proj.text[row] == 0 and self.att.scale:
            score = float(self.att.scores[row] / self.att.scale)
        self._say(self.map.hover_text(kind, row, score))

    def _say(self, text: str) -> None:
        self.hover.setText(text or " ")
        self.sigHoverText.emit(text)

    # --- view → view, view → model ------------------------------------------------------
    def _on_q_tab(self, index: int) -> None:
        self.figure.setCurrentIndex(index)
        self.map_controls.setVisible(index == MAP)
        self._say("")
        if index == MAP:
            self._request_map()
            self._draw_map()

    def _on_q_colour(self, _index: int) -> None:
        self._write(self.colour, qk_colour=self.colour.currentData())

    def _on_q_projection(self, _index: int) -> None:
        self._write(self.projection, qk_projection=self.projection.currentData())

    def _on_q_project(self) -> None:
        lines = [t.strip() for t in self.sentences.toPlainText().splitlines()]
        self._write(self.sentences, qk_sentences=tuple(t for t in lines if t))

    # --- fields → view -------------------------------------------------------------------
    def _on_head_changed(self) -> None:
        self.sentences_row.setVisible(self.workspace.state.head == "model")

    def _on_qk_colour_changed(self) -> None:
        self._draw_map()

    def _on_qk_projection_changed(self) -> None:
        self._request_map()

    def _on_qk_sentences_changed(self) -> None:
        lines = tuple(self.workspace.state.qk_sentences)
        shown = tuple(t.strip() for t in self.sentences.toPlainText().splitlines() if t.strip())
        if shown != lines:
            self.sentences.setPlainText("\n".join(lines))
        self._request_map()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        if self.tabs.currentIndex() == MAP and self.att is not None:
            self._request_map()
            self._draw_map()

    # --- slides ------------------------------------------------------------------------
    def focus_data(self, quoted: frozenset) -> None:
        """A lesson quoting the map alone shows the map's tab; one quoting the terms, the
        split."""
        if "qk_map" in quoted and "terms" not in quoted:
            self.tabs.setCurrentIndex(MAP)
        elif "terms" in quoted:
            self.tabs.setCurrentIndex(SPLIT)

    # --- look --------------------------------------------------------------------------
    def _restyle(self, theme) -> None:
        style_figure(self.figure, theme)
        font = self.plot_font()
        self.matrix.set_theme(theme)
        self.dial.set_theme(theme)
        self.dial.set_font(font)
        self.map.set_style(theme, font)
        self._redraw_styled()
