"""Before / after in the heatmap and the layers grid: what ``display.compare`` shows.

With a real model and ``display.compare`` at ``intervened`` or ``difference`` the two panels
draw the prediction topic's intervened run (or intervened − clean) instead of the clean
capture (:mod:`attnviz.model.intervened`); ``clean`` leaves them as they always were. The
difference is drawn in the diverging colour map centred on 0, its levels ±the largest
change, and the legend says so, with the layers before the first intervention (exactly
0) named. Strings are translated in the ``Compare`` context.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QCoreApplication

from attnviz.ui.heatmap_look import colormap_for
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.numbers import fmt_g
from attnviz.ui.widgets.placeholders import fill

if TYPE_CHECKING:  # the intervened run loads a model: imported when one is shown
    from attnviz.model.intervened import Compared

# The colour map of a difference: blue below 0, the light middle at 0, red above.
DIVERGING = "diverging"
# Levels of a difference that is 0 everywhere shown (a layer before the intervention).
ZERO_SPAN = 1e-6


def compare_mode(workspace) -> str:
    """``display.compare`` where it applies (a real model's head), else ``clean``."""
    doc = workspace.document
    return doc["display"].compare if doc["attention"].head == "model" else "clean"


class ComparePendingError(ValueError):
    """The intervened run is on its way on a worker: the panel says so and is asked to
    draw again when it has come (:func:`compared_now`)."""


#: Runs on their way: arguments → the redraws to call when they come.
_WAITING: dict[tuple, list] = {}
#: Runs that failed, by arguments and capture (their one-line error is said, not run again),
#: the last few.
_FAILED: dict[tuple, Exception] = {}
_FAILED_KEPT = 8


def compared_now(workspace, redraw) -> Compared:
    """The proven intervened run of the workspace's model and interventions: kept, or run
    at once where the workspace has no runner (an export, a notebook); else started on the
    runner — a forward pass of a real model must not hold the window — and
    :class:`ComparePendingError` raised, ``redraw()`` called on the GUI thread once it has come.
    ValueError in one line for what cannot be run or proven."""
    from attnviz.model.intervened import compare_args, compared, kept_compared

    args = compare_args(workspace.document)
    found = kept_compared(args)
    if found is not None:
        return found
    from attnviz.model.real_model import STORE

    # A failure is kept for this capture only: the folder loaded again is tried again.
    failed = (args, id(STORE.cached(args[0], args[1])))
    if failed in _FAILED:
        raise _FAILED[failed]
    if workspace.runner is None:
        return compared(*args)
    waiting = _WAITING.get(args)
    if waiting is None:
        _WAITING[args] = [redraw]

        def done(result) -> None:
            if isinstance(result, BaseException):  # said in one line, not run again
                if not isinstance(result, ValueError):
                    result = ValueError(f"{type(result).__name__}: {result}".splitlines()[0])
                _FAILED[failed] = result
                while len(_FAILED) > _FAILED_KEPT:
                    _FAILED.pop(next(iter(_FAILED)))
            for again in _WAITING.pop(args, []):
                with contextlib.suppress(RuntimeError):  # its panel closed meanwhile
                    again()

        workspace.runner(lambda: compared(*args), done)
    elif redraw not in waiting:
        waiting.append(redraw)
    raise ComparePendingError(
        QCoreApplication.translate(
            "Compare", "Running the model again with the interventions (one forward pass)…"
        )
    )


def watch(panel, handler) -> None:
    """Call ``handler()`` when ``display`` or ``prediction`` change (the panel's own topic
    is ``attention``: those reach it only this way)."""
    doc = panel.workspace.document
    bind(panel, doc["display"].changed, handler)
    bind(panel, doc["prediction"].changed, handler)


def span(values: np.ndarray) -> float:
    """The half-width of a difference's symmetric levels: its largest change (a tiny
    positive span where everything is exactly 0, so 0 stays the middle colour)."""
    finite = values[np.isfinite(values)]
    top = float(np.abs(finite).max()) if finite.size else 0.0
    return top if top > 0 else ZERO_SPAN


def diverging_lut() -> np.ndarray:
    """256 × 3 uint8 of the diverging colour map (the layers grid's tiles)."""
    lut = colormap_for(DIVERGING).getLookupTable(0.0, 1.0, 256, alpha=False)
    return np.asarray(lut, dtype=np.uint8)[:, :3]


def layers_before(first: int, mode: str = "difference") -> str:
    """What the legends say of the layers before ``first`` ("" when there is none): exactly
    0 in a difference, the clean run's weights in the intervened run."""
    if first <= 0:
        return ""
    if mode == "intervened":
        if first == 1:
            return QCoreApplication.translate(
                "Compare", "Layer 0 is the clean run's: it runs before the first intervention."
            )
        text = QCoreApplication.translate(
            "Compare", "Layers 0–%1 are the clean run's: they run before the first intervention."
        )
        return fill(text, first - 1)
    if first == 1:
        return QCoreApplication.translate(
            "Compare", "Layer 0 is exactly 0: it runs before the first intervention."
        )
    return fill(
        QCoreApplication.translate(
            "Compare", "Layers 0–%1 are exactly 0: they run before the first intervention."
        ),
        first - 1,
    )


@dataclass(frozen=True)
class Shown:
    """One head's before / after map, as the heatmap draws it."""

    mode: str
    values: np.ndarray  # (n, n) float64
    levels: tuple[float, float]
    first: int
    layer: int
    kept: np.ndarray | None = None  # (n, n) bool: the links not knocked out (None: all)

    @property
    def symbol(self) -> str:
        """ΔA for a difference, A′ for the intervened run."""
        return "ΔA" if self.mode == "difference" else "A′"

    def legend(self) -> str:
        """What the colours mean, and where the intervention starts."""
        if self.mode == "intervened":
            text = QCoreApplication.translate(
                "Compare", "After: the weights with the prediction's interventions, in the model."
            )
        else:
            top = fmt_g(self.levels[1], 3)
            text = fill(
                QCoreApplication.translate(
                    "Compare",
                    "ΔA = intervened A − clean A: blue below 0, red above, the middle "
                    "colour 0 (levels ±%1).",
                ),
                top,
            )
        before = layers_before(self.first, self.mode)
        return f"{text} {before}" if before else text


def shown_head(workspace, redraw=lambda: None) -> Shown | None:
    """The map the heatmap draws in the current ``display.compare`` (None: the clean
    heatmap, as always); ValueError in one line when it cannot be made, or
    :class:`ComparePendingError` while the run is on its way (``redraw()`` called after)."""
    mode = compare_mode(workspace)
    if mode == "clean":
        return None
    s = workspace.document["attention"]
    c: Compared = compared_now(workspace, redraw)
    values = c.head(mode, s.layer, s.model_head)
    if mode == "difference":
        m = span(values)
        levels = (-m, m)
    else:
        levels = (0.0, 1.0)
    return Shown(mode, values, levels, c.first, s.layer, c.kept(s.layer, s.model_head))
