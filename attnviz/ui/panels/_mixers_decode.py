"""The mixers panel's decode and depth pages (:class:`DecodePagesMixin`, mixed into
:class:`~attnviz.ui.panels.mixers.MixersPanel`). Strings are translated in the
``MixersPanel`` context.

Decode: the token t being generated reads the KV cache (softmax: t entries, a window its
ring of ``window`` slots) or updates a fixed d × d state; the table gives every kind's
FLOPs and bytes for this step and for recomputing the whole prefix without a cache
(:mod:`attnviz.core.decode_step`). Depth: which positions token t depends on through
``depth`` stacked window layers, composed from the masks
(:mod:`attnviz.core.receptive_field`).
"""

from __future__ import annotations

import html
import math

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from attnviz.core.decode_step import all_step_costs, recurrent_state, ring_slots
from attnviz.core.mixers import KINDS, RECURRENT
from attnviz.core.receptive_field import reach_back, receptive_field
from attnviz.model.resolve.mixers import decode_token, params_of
from attnviz.model.topics.mixers import MAX_DEPTH, MAX_REACH, MAX_TOKENS
from attnviz.ui.panels._mixers_names import kind_name
from attnviz.ui.panels._mixers_views import DecodeView, ReachView
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.units import decimal_bytes, sci


def _quantity(x: int) -> str:
    """A count as it is below ten thousand, in powers of ten above (a narrow table cell)."""
    return str(x) if x < 10_000 else sci(float(x), 3)


class DecodePagesMixin:
    """The decode stepper and the depth picture of the mixers panel."""

    # --- building ----------------------------------------------------------------------
    def _step_spin(self, name: str, lo: int, hi: int, prefix: str, tip: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setObjectName(f"{name}_{len(self._page_spins)}")
        spin.setRange(lo, hi)
        spin.setPrefix(prefix)
        spin.setToolTip(tip)
        spin.valueChanged.connect(lambda v: self._write(spin, **{name: int(v)}))
        self._page_spins.append(spin)
        self.mirror(name, spin)
        return spin

    def _page_labels(self) -> tuple:
        """The decode and depth pages' lines, which take the panel's font on a stage."""
        return (self.decode_table, self.decode_summary, self.depth_summary)

    def _build_decode_page(self) -> QWidget:
        self._page_spins: list[QSpinBox] = []
        page = QWidget()
        page.setObjectName("decode_page")
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.step_spin = self._step_spin(
            "decode_step",
            1,
            MAX_TOKENS,
            QCoreApplication.translate("MixersPanel", "t = "),
            QCoreApplication.translate("MixersPanel", "The token generated (1 … n)"),
        )
        self.step_slider = QSlider(Qt.Orientation.Horizontal)
        self.step_slider.setObjectName("decode_slider")
        self.step_slider.setRange(1, MAX_TOKENS)
        self.step_slider.setToolTip(
            QCoreApplication.translate("MixersPanel", "The token generated: ←/→ step one token")
        )
        self.step_slider.valueChanged.connect(
            lambda v: self._write(self.step_slider, decode_step=int(v))
        )
        self.mirror("decode_step", self.step_slider)
        back = QToolButton()
        back.setObjectName("decode_back")
        back.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaSeekBackward))
        back.setToolTip(QCoreApplication.translate("MixersPanel", "One token back"))
        back.clicked.connect(lambda: self._step_by(-1))
        ahead = QToolButton()
        ahead.setObjectName("decode_ahead")
        ahead.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_MediaSeekForward))
        ahead.setToolTip(QCoreApplication.translate("MixersPanel", "One token more"))
        ahead.clicked.connect(lambda: self._step_by(1))
        window = self._step_spin(
            "window",
            1,
            MAX_REACH,
            QCoreApplication.translate("MixersPanel", "window "),
            QCoreApplication.translate("MixersPanel", "Keys a row sees, itself included"),
        )
        row.addWidget(self.step_spin)
        row.addWidget(back)
        row.addWidget(self.step_slider, 1)
        row.addWidget(ahead)
        row.addWidget(window)
        column.addLayout(row)
        body = QHBoxLayout()
        self.decode_view = DecodeView()
        self.decode_view.setObjectName("decode_view")
        # It draws in the room it gets: beside the table in a dock at 1280 × 720 its own
        # wish widened the panel past the dock.
        self.decode_view.setMinimumWidth(140)
        self.decode_view.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        body.addWidget(self.decode_view, 1)
        self.decode_table = QLabel()
        self.decode_table.setObjectName("decode_table")
        self.decode_table.setTextFormat(Qt.TextFormat.RichText)
        # Wrapping, as the kinds table: its room is then its laid-out height, which a slide's
        # check measures (a table's text read as one line is wider than any box).
        self.decode_table.setWordWrap(True)
        self.decode_table.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.decode_table.setToolTip(
            QCoreApplication.translate(
                "MixersPanel",
                "FLOPs and bytes of this one step (cache or state read, new entries "
                "written), and of running the head over the whole prefix again without a cache.",
            )
        )
        # The summary under the table, beside the picture: below both it fell under the
        # fold at 1280 × 720 with large fonts.
        side = QVBoxLayout()
        side.addWidget(self.decode_table)
        self.decode_summary = QLabel()
        self.decode_summary.setObjectName("decode_summary")
        self.decode_summary.setWordWrap(True)
        self.decode_summary.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        side.addWidget(self.decode_summary)
        side.addStretch(1)
        body.addLayout(side, 0)
        column.addLayout(body, 1)
        return page

    def _build_depth_page(self) -> QWidget:
        page = QWidget()
        page.setObjectName("depth_page")
        column = QVBoxLayout(page)
        column.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(
            self._step_spin(
                "depth",
                1,
                MAX_DEPTH,
                QCoreApplication.translate("MixersPanel", "layers L = "),
                QCoreApplication.translate("MixersPanel", "Window layers stacked"),
            )
        )
        row.addWidget(
            self._step_spin(
                "window",
                1,
                MAX_REACH,
                QCoreApplication.translate("MixersPanel", "window w = "),
                QCoreApplication.translate("MixersPanel", "Keys a row sees, itself included"),
            )
        )
        row.addWidget(
            self._step_spin(
                "decode_step",
                1,
                MAX_TOKENS,
                QCoreApplication.translate("MixersPanel", "token t = "),
                QCoreApplication.translate("MixersPanel", "The token whose reach is drawn"),
            )
        )
        row.addStretch(1)
        column.addLayout(row)
        # The sentence over the picture: under it, it fell below the fold.
        self.depth_summary = QLabel()
        self.depth_summary.setObjectName("depth_summary")
        self.depth_summary.setWordWrap(True)
        column.addWidget(self.depth_summary)
        self.reach_view = ReachView()
        self.reach_view.setObjectName("reach_view")
        column.addWidget(self.reach_view, 1)
        return page

    def _step_by(self, delta: int) -> None:
        values = self.state.snapshot()
        t = max(1, min(decode_token(values) + delta, values["n"]))
        self._write(self.step_spin, decode_step=t)

    # --- fields → view -----------------------------------------------------------------
    def _on_decode_step_changed(self) -> None:
        self._draw_pages()

    # The pages follow these at once (the depth page needs no results; the decode page
    # draws its numbers now and its weights when the worker's results arrive).
    _on_depth_changed = _on_window_changed = _on_n_changed = _on_d_changed = _on_decode_step_changed

    def _draw_pages(self) -> None:
        values = self.state.snapshot()
        # The stepper runs over the head's tokens: its range follows n.
        for widget in (self.step_spin, self.step_slider):
            widget.blockSignals(True)
            widget.setMaximum(values["n"])
            widget.setValue(decode_token(values))
            widget.blockSignals(False)
        self._draw_decode(values)
        self._draw_depth(values)

    def _draw_decode(self, values: dict) -> None:
        t, n, d = decode_token(values), values["n"], values["d"]
        params = params_of(values)
        costs = all_step_costs(t, d, params)
        kind = values["kind"]
        res = self.results
        holder = kind if kind in RECURRENT else "gated_deltanet"
        window = params.window
        ring = ring_slots(t, min(window, n))
        if res is not None and res.n == n and res.d == d:
            cache = res.matrices["softmax"][t - 1, :t]
            ring_weights = np.where(ring > 0, res.matrices["window"][t - 1, ring - 1], 0.0)
            state = recurrent_state(holder, res.k, res.v, t, params)
        else:
            cache, ring_weights, state = np.zeros(t), np.zeros(len(ring)), None
        cache_title = QCoreApplication.translate(
            "MixersPanel", "KV cache (softmax): %1 of %2 tokens"
        )
        ring_title = QCoreApplication.translate(
            "MixersPanel", "Ring (window): %1 slots, token %2 in slot %3"
        )
        state_title = QCoreApplication.translate("MixersPanel", "%1: a fixed %2 × %2 state")
        titles = (
            fill(cache_title, t, n),
            fill(ring_title, len(ring), t, (t - 1) % len(ring) + 1),
            fill(state_title, kind_name(holder), d),
        )
        self.decode_view.set_step(t, n, cache, ring, ring_weights, state, titles)
        self._write_decode_table(costs, kind)
        soft, ring_cost, fixed = costs["softmax"], costs["window"], costs[holder]
        self.decode_summary.setText(
            fill(
                QCoreApplication.translate(
                    "MixersPanel",
                    "Token %1: softmax reads %2 of cache, the window %3; %4 reads and writes "
                    "%5 of state at every step. Without a cache token %1 reruns the prefix: "
                    "%6× softmax's FLOPs.",
                ),
                t,
                decimal_bytes(soft.bytes_read),
                decimal_bytes(ring_cost.bytes_read),
                kind_name(holder),
                decimal_bytes(fixed.bytes),
                fmt(soft.recompute_flops / soft.flops, 1),
            )
        )

    def _write_decode_table(self, costs: dict, kind: str) -> None:
        # Two header rows: this step, then the whole prefix run again without a cache.
        step = html.escape(QCoreApplication.translate("MixersPanel", "this step"))
        again = html.escape(QCoreApplication.translate("MixersPanel", "no cache"))
        rows = [
            f"<tr><th></th><th colspan='2' align='left'>{step}</th>"
            f"<th colspan='2' align='left'>{again}</th></tr>",
            "<tr>"
            + "".join(
                f"<th align='left'>{html.escape(h)}&nbsp;&nbsp;</th>"
                for h in (
                    QCoreApplication.translate("MixersPanel", "mixer"),
                    QCoreApplication.translate("MixersPanel", "FLOPs"),
                    QCoreApplication.translate("MixersPanel", "bytes"),
                    QCoreApplication.translate("MixersPanel", "FLOPs"),
                    QCoreApplication.translate("MixersPanel", "bytes"),
                )
            )
            + "</tr>",
        ]
        listed = getattr(self, "table_kinds", None)  # a slide lists softmax and the kind drawn
        for k in KINDS if listed is None else [k for k in KINDS if k in {*listed, kind}]:
            c = costs[k]
            # The table names a kind without its examples in brackets: it must stay narrow.
            cells = (
                kind_name(k).split(" (")[0], _quantity(c.flops), _quantity(c.bytes),
                _quantity(c.recompute_flops), _quantity(c.recompute_bytes),
            )  # fmt: skip
            style = " style='font-weight:bold'" if k == kind else ""
            rows.append(
                f"<tr{style}>"
                + "".join(f"<td>{html.escape(str(x))}&nbsp;&nbsp;</td>" for x in cells)
                + "</tr>"
            )
        text = "<table cellspacing='0' cellpadding='0'>" + "".join(rows) + "</table>"
        self.decode_table.setText(text)
        # The table's own width, kept: a wrapping label narrower than its table clips the
        # last column (the picture beside it gives way instead).
        doc = QTextDocument()
        doc.setDefaultFont(self.decode_table.font())
        doc.setHtml(text)
        self.decode_table.setMinimumWidth(math.ceil(doc.idealWidth()) + 4)

    def _draw_depth(self, values: dict) -> None:
        t, window, depth = decode_token(values), values["window"], values["depth"]
        reached = receptive_field(t, window, depth)
        names = [
            fill(QCoreApplication.translate("MixersPanel", "layer %1"), layer)
            for layer in range(depth + 1)
        ]
        names[0] = QCoreApplication.translate("MixersPanel", "token")
        self.reach_view.set_reach(
            reached, names, QCoreApplication.translate("MixersPanel", "position")
        )
        first = int(np.argmax(reached[-1])) + 1
        back = reach_back(window, depth)
        self.depth_summary.setText(
            fill(
                QCoreApplication.translate(
                    "MixersPanel",
                    "A window of %1 keys, itself included, adds %2 tokens of reach a layer: "
                    "through %3 layers token %4 reaches back (%1 − 1)·%3 = %5 tokens, to "
                    "position %6 (composed masks).",
                ),
                window,
                window - 1,
                depth,
                t,
                back,
                first if t - back < 1 else t - back,
            )
            + (
                fill(
                    QCoreApplication.translate(
                        "MixersPanel", " The first token is reached: %1 tokens are all there are."
                    ),
                    t,
                )
                if t - back < 1
                else ""
            )  # fmt: skip
        )
