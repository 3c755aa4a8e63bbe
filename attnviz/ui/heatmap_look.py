"""How a heatmap shows the attention topic: colour maps, levels, labels, the formula.

The heatmap panel (:mod:`attnviz.ui.panels.heatmap`) and its slide figure
(:mod:`attnviz.ui.export`) fill their views with these same functions, so a slide shows
what the screen does; the panels that draw heads take their colour maps from here.

Weights are probabilities: automatic levels of A are 0 to 1 (unless ``stretch_weights``),
so the matrices with and without the √d_k divisor can be compared by colour; S and O get
the range of their values.
"""

from __future__ import annotations

import html
import math
from functools import cache
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from attnviz.model.resolve import Results
from attnviz.model.topics.attention import AttentionState
from attnviz.ui.preset_strings import preset_text
from attnviz.ui.widgets.colormaps import colormap
from attnviz.ui.widgets.heatmap_view import HeatmapView
from attnviz.ui.widgets.numbers import fmt_g

_C = "HeatmapPanel"
#: pyqtgraph maps behind the state's colormap names; the diverging one is for scores.
PG_COLORMAPS = {"diverging": "CET-D1"}
SYMBOLS = {"scores": "S", "weights": "A", "output": "O", "mixing": "M"}
#: What each matrix (and the weights with a sink) means, under its formula.
NOTES = {
    "scores": QT_TRANSLATE_NOOP("HeatmapPanel", "how well each query matches each key"),
    "weights": QT_TRANSLATE_NOOP(
        "HeatmapPanel", "each row is a probability distribution over the keys"
    ),
    "output": QT_TRANSLATE_NOOP("HeatmapPanel", "each row is the query's mix of the values"),
    "mixing": QT_TRANSLATE_NOOP(
        "HeatmapPanel", "row t: how much of each value v_s the output at t takes"
    ),
    "sink": QT_TRANSLATE_NOOP(
        "HeatmapPanel",
        "each row gives part of its weight to the sink and spreads the rest "
        "over the keys: rows sum to less than 1",
    ),
}


@cache
def colormap_for(name: str) -> pg.ColorMap:
    """The pyqtgraph colour map behind a state colormap name (viridis, …, diverging)."""
    return colormap(PG_COLORMAPS.get(name, name))


def auto_levels(values: np.ndarray, allowed: np.ndarray | None, diverging: bool) -> tuple:
    """Levels spanning the visible (unmasked) values; symmetric about 0 when ``diverging``."""
    shown = values[allowed] if allowed is not None and allowed.shape == values.shape else values
    shown = shown[np.isfinite(shown)] if shown.dtype.kind == "f" else shown
    if shown.size == 0:
        return (-1.0, 1.0) if diverging else (0.0, 1.0)
    lo, hi = float(shown.min()), float(shown.max())
    if diverging:
        m = max(abs(lo), abs(hi)) or 1.0
        return (-m, m)
    if hi - lo < 1e-12:
        return (lo - 0.5, hi + 0.5)
    return (lo, hi)


#: Automatic levels of the weights: a probability is between 0 and 1.
WEIGHT_LEVELS = (0.0, 1.0)


def view_levels(state: AttentionState, values: np.ndarray, allowed) -> tuple[float, float]:
    """The colour levels the state asks for: its fixed ``levels``, or automatic ones.

    Automatic levels of A are 0 to 1 (a weight is a probability), or the weights' own range
    with ``stretch_weights``; those of S and O span their values.
    """
    if not state.levels_auto:
        return state.levels
    if state.matrix == "weights" and not state.stretch_weights:
        return WEIGHT_LEVELS
    return auto_levels(values, allowed, state.colormap == "diverging")


def picture_levels(state: AttentionState, pic) -> tuple[float, float]:
    """The colour levels of a :class:`~attnviz.model.resolve._display.Picture` as drawn:
    from the grid itself (pooled for a long sentence), hatched cells left out of S and A
    (O's columns are not keys)."""
    allowed = pic.allowed if state.matrix != "output" else None
    return view_levels(state, pic.values, allowed)


def column_labels(state: AttentionState, matrix: str, d_v: int) -> tuple[str, ...]:
    """Keys for S and A; the value dimensions (named when the preset names them) for O."""
    if matrix != "output":
        return state.tokens
    if len(state.value_labels) == d_v:
        return state.value_labels
    return tuple(f"v{j + 1}" for j in range(d_v))


def value_label_text(label: str) -> str:
    """A value dimension's name in the UI's language ("seat" → "assento").

    The names are data (a preset's, or typed by the user); the shipped ones are translated
    as preset strings, any other is shown as it is.
    """
    return preset_text(label)


def shown_column_labels(state: AttentionState, matrix: str, d_v: int) -> tuple[str, ...]:
    """:func:`column_labels` as the screen and slides show them (value names translated)."""
    labels = column_labels(state, matrix, d_v)
    if matrix == "output" and len(state.value_labels) == d_v:
        return tuple(value_label_text(label) for label in labels)
    return labels


def formula(state: AttentionState, matrix: str) -> str:
    """The formula of the matrix as the state computes it, e.g. ``S = QKᵀ / √d_k``."""
    terms = state.score_terms()
    if matrix == "scores":
        inner = "QKᵀ / √d_k" if state.scale else "QKᵀ"
        if state.temperature != 1.0:
            inner += " / T"
        if terms.tuning:
            inner = f"τᵢ·{inner}" if inner == "QKᵀ" else f"τᵢ·({inner})"
        if terms.softcap:
            cap = fmt_g(terms.softcap, 4)
            inner = f"{cap}·tanh({inner} / {cap})"
        if terms.alibi:
            inner += f" − {fmt_g(terms.alibi, 4)}·|i − j|"
        text = f"S = {inner}"
        if state.temperature != 1.0:
            text += f"   (T = {fmt_g(state.temperature, 6)})"
        if terms.tuning:
            tuning, floor = fmt_g(terms.tuning, 4), terms.tuning_floor
            text += f"   (τᵢ = 1 + {tuning}·ln(⌊(i + 1)/{floor}⌋ + 1))"
        return text
    if matrix == "mixing":
        kind = mixing_kind(state)
        if kind.startswith("softmax"):  # a softmax head mixes its values by its weights
            return "out = M·V,  M = A = " + formula(state, "weights").partition(" = ")[2]
        return "out = M·V"  # the heading above names the layer's kind
    if matrix == "weights":
        if terms.sink is not None:
            return f"A = e^S / (Σ e^S + e^{fmt_g(terms.sink, 4)})   (sink)"
        return "A = softmax(S)"
    return "O = A·V"


def _capture(state: AttentionState):
    """The captured sentence of the model head the state shows, when it is held."""
    if state.head != "model" or not state.model_path:
        return None
    # Here, not at the top: the window opens without the real-model machinery.
    from attnviz.model.real_model import STORE

    return STORE.cached(state.model_path, state.model_text)


def mixing_kind(state: AttentionState) -> str:
    """The kind of token mixing the shown head does: a real model layer's kind
    (``"Gated DeltaNet"``, ``"softmax (NoPE)"``, …), else ``"softmax"``."""
    cap = _capture(state)
    if cap is None or not 0 <= state.layer < cap.layer_count:
        return "softmax"
    from attnviz.model.real_mixing import head_kind

    # Falcon-H1's SSM heads, beside its attention heads, are Mamba-2's.
    return head_kind(cap, state.layer, state.model_head)


def model_name(state: AttentionState) -> str:
    """The name of the real model whose head the state shows ("" when it shows none)."""
    cap = _capture(state)
    if state.head != "model" or not state.model_path:
        return ""
    return cap.name if cap is not None else (Path(state.model_path).name or state.model_path)


def model_heading(state: AttentionState) -> str:
    """What a real model's head is: ``"tiny-llama · layer 3 · head 2 · softmax (NoPE)"``
    — the model, the layer, the query head and the layer's kind (when the captured
    sentence is at hand); "" while the state shows no model's head."""
    name = model_name(state)
    if not name:
        return ""
    text = QCoreApplication.translate("HeatmapPanel", "%1 · layer %2 · head %3")
    text = text.replace("%1", name).replace("%2", str(state.layer))
    text = text.replace("%3", str(state.model_head))
    cap = _capture(state)
    if cap is not None and 0 <= state.layer < cap.layer_count:
        text += " · " + mixing_kind(state)  # a mechanism's name, as papers write it
    return text


def not_softmax_note(state: AttentionState) -> str:
    """At a real model's head that is not softmax attention (a Gated DeltaNet, Mamba-2, …
    layer, shown by its mixing matrix): a line saying that a softmax of its q and k is not
    what the model computes; "" elsewhere."""
    kind = mixing_kind(state) if state.head == "model" else "softmax"
    if kind.startswith("softmax"):
        return ""
    return QCoreApplication.translate(
        "HeatmapPanel",
        "%1 is not softmax attention: these steps put its q and k through a softmax the "
        "model never computes; how it mixes its tokens is the heatmap's M",
    ).replace("%1", kind)


def model_heading_html(state: AttentionState) -> str:
    """:func:`model_heading` in bold on a line of its own, for a caption ("" without a
    model's head)."""
    heading = model_heading(state)
    return f"<b>{html.escape(heading)}</b><br>" if heading else ""


def rope_note(d_k: int) -> str:
    """What RoPE does to this head's Q and K (an odd d_k keeps its last dimension as it is)."""
    pairs = d_k // 2
    if pairs == 0:
        return QCoreApplication.translate(
            "HeatmapPanel", "RoPE: d_k = 1 has no pair of dimensions to turn, so nothing moves"
        )
    if pairs == 1:  # d_k = 2 or 3: "1 pairs" would read wrong
        text = QCoreApplication.translate(
            "HeatmapPanel", "RoPE: Q and K turned by token position, one pair of dimensions"
        )
    else:
        text = QCoreApplication.translate(
            "HeatmapPanel", "RoPE: Q and K turned by token position, %1 pairs of dimensions"
        ).replace("%1", str(pairs))
    if d_k % 2:
        text += QCoreApplication.translate(
            "HeatmapPanel", " (d_k = %1 is odd: its last dimension has no partner and stays)"
        ).replace("%1", str(d_k))
    return text


def show_picture(view: HeatmapView, state: AttentionState, pic) -> None:
    """Draw ``pic`` (a :class:`~attnviz.model.resolve._display.Picture`: the matrix, its
    pooled grid, or a quick preview) in ``view``, with the state's levels."""
    allowed = pic.allowed if state.matrix != "output" else None
    view.set_matrix(
        pic.values,
        picture_levels(state, pic),
        allowed=allowed,
        entropy=pic.entropy,
        max_entropy=math.log(max(state.n, 1)),
        extent=pic.extent,
    )


def set_axis_titles(view: HeatmapView, state: AttentionState) -> None:
    """The words beside the axes of the matrix the state shows, in the view's style."""
    if state.matrix == "output":
        cols = QCoreApplication.translate("HeatmapPanel", "value dimension")
    else:
        cols = QCoreApplication.translate("HeatmapPanel", "key")
    view.set_axis_titles(
        QCoreApplication.translate("HeatmapPanel", "query"),
        cols,
        QCoreApplication.translate("HeatmapPanel", "entropy (nats)"),
    )


def configure_view(view: HeatmapView, state: AttentionState, results: Results) -> None:
    """Fill ``view`` with everything the state shows (used for exports and first paint)."""
    matrix = state.matrix
    width = results.picture(matrix).extent[1]
    view.set_colormap(colormap_for(state.colormap))
    view.set_labels(state.tokens, shown_column_labels(state, matrix, width))
    set_axis_titles(view, state)
    pic = results.picture(matrix)
    if pic.entropy is None and getattr(
        view, "entropy_shown", True
    ):  # a hybrid's other layer: no softmax rows
        view.set_entropy_shown(False)
    show_picture(view, state, pic)
