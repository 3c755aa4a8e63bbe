"""The one soak driver of the UI tests: random named actions on a window or a panel, counted.

A soak draws ``count`` actions from a seeded :class:`random.Random` (the same run on a fast
and on a busy machine: it counts actions, never seconds) and runs each; an action that raises
one of the ``refused`` exceptions (a value the state refuses, :class:`StateError`) counts as
refused, anything else fails the test at once, with the step and the action named. What each
test soaks stays in the test: its own actions (edits of its topic's fields, the mouse resting
on its views while the shapes change, its buttons), the window's common ones built here
(undo, redo, resize, theme, large fonts, language), and its own assertions afterwards.

    rng = random.Random("gradient-soak")
    soak = Soak(rng, [
        Action("edit", lambda: state.update(d_k=rng.randint(1, 40)), weight=0.45),
        undo(window, weight=0.1),
        switch_theme(window, rng),
    ], before=undo_clock(window, rng))
    done = soak.run(60)          # Counter: how many times each action ran
    assert soak.steps == 60

``ATTNVIZ_SOAK_ACTIONS`` sets the count of the long soak (:func:`soak_actions`).
"""

from __future__ import annotations

import contextlib
import math
import os
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from attnviz.model.fields import StateError

#: The variable that lengthens (or shortens) the long soak by hand: a count of actions.
ACTIONS_ENV = "ATTNVIZ_SOAK_ACTIONS"

#: Hooks take the step's index (0, 1, … count − 1).
StepHook = Callable[[int], object]


def soak_actions(default: int) -> int:
    """The number of actions of the long soak: ``ATTNVIZ_SOAK_ACTIONS``, else ``default``."""
    value = os.environ.get(ACTIONS_ENV, "").strip()
    if not value:
        return default
    count = int(value)
    if count < 1:
        raise ValueError(f"{ACTIONS_ENV} must be a positive count of actions, got {value!r}")
    return count


@dataclass(frozen=True)
class Action:
    """One thing a soak may do: ``run()`` it, drawn with probability ∝ ``weight``.

    ``when(step)``, if given, says at which steps the action may be drawn (a restyle of the
    whole window is costly: ``when=lambda step: step % 8 == 0``); at the others it is left out
    of the draw and the rest keep their relative weights.
    """

    name: str
    run: Callable[[], object]
    weight: float = 1.0
    when: Callable[[int], bool] | None = None

    def __post_init__(self) -> None:
        if not self.weight > 0:
            raise ValueError(f"action {self.name!r}: weight must be > 0, got {self.weight}")


class SoakError(AssertionError):
    """An action raised something other than a refusal: the step and the action are named."""


def process_events(_step: int) -> None:
    """The default settle after each action: let Qt deliver what the action posted."""
    QApplication.processEvents()


class Soak:
    """Run ``count`` random actions, each drawn from ``actions`` by weight, with ``rng``.

    Per step: ``before(step)``; the action (``at[step]`` if the step is scheduled, else one
    drawn among the actions whose ``when`` allows the step); ``after(step)`` (the mouse that
    rests on a view while the data change shape, an invariant to check); ``settle(step)``
    (by default ``QApplication.processEvents()``). A ``refused`` exception of the action is
    counted in :attr:`refusals`; any other exception, of the action or of a hook, fails.
    """

    def __init__(
        self,
        rng: random.Random,
        actions: Iterable[Action],
        *,
        at: Mapping[int, Action] | None = None,
        before: StepHook | None = None,
        after: StepHook | None = None,
        settle: StepHook | None = process_events,
        refused: tuple[type[BaseException], ...] = (StateError,),
    ) -> None:
        if not isinstance(rng, random.Random):
            raise TypeError("a soak draws from a seeded random.Random, so a failure repeats")
        self.rng = rng
        self.actions = tuple(actions)
        if not self.actions:
            raise ValueError("a soak needs at least one action")
        names = [a.name for a in self.actions]
        if len(set(names)) != len(names):
            raise ValueError(f"action names must differ: {names}")
        self.at = dict(at or {})
        self.before, self.after, self.settle = before, after, settle
        self.refused = refused
        #: How many times each action ran (by name), refusals included.
        self.done: Counter[str] = Counter()
        #: How many times each action was refused (by name).
        self.refusals: Counter[str] = Counter()
        #: Steps run so far (over every call of :meth:`run`).
        self.steps = 0

    def draw(self, step: int) -> Action:
        """The action of ``step``: scheduled, or drawn by weight among those allowed."""
        if step in self.at:
            return self.at[step]
        allowed = [a for a in self.actions if a.when is None or a.when(step)]
        if not allowed:
            raise ValueError(f"no action may run at step {step}")
        return self.rng.choices(allowed, weights=[a.weight for a in allowed])[0]

    def run(self, count: int) -> Counter[str]:
        """Run ``count`` actions (a count, never a duration); return :attr:`done`."""
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        for step in range(self.steps, self.steps + count):
            if self.before is not None:
                self.before(step)
            action = self.draw(step)
            try:
                action.run()
            except self.refused:
                self.refusals[action.name] += 1
            except Exception as exc:
                raise SoakError(f"step {step}, action {action.name!r}: {exc!r}") from exc
            self.done[action.name] += 1
            if self.after is not None:
                self.after(step)
            if self.settle is not None:
                self.settle(step)
            self.steps = step + 1
        return self.done


def wait_every(qtbot, every: int, ms: int) -> StepHook:
    """A settle that lets the event loop run for ``ms`` every ``every`` steps (from step 0)."""
    return lambda step: qtbot.wait(ms) if step % every == 0 else None


def undo_clock(window, rng: random.Random) -> StepHook:
    """Give the window's undo history a fake clock; the hook moves it on by 0.01 s or 1 s
    per step, so edits sometimes merge into one undo step and sometimes do not."""
    now = [0.0]
    window.undo.clock = lambda: now[0]

    def tick(_step: int) -> None:
        now[0] += rng.choice((0.01, 1.0))

    return tick


# --- the window's common actions ---------------------------------------------------------------
def undo(window, weight: float = 1.0) -> Action:
    return Action("undo", lambda: window.undo.stack.undo(), weight)


def redo(window, weight: float = 1.0) -> Action:
    return Action("redo", lambda: window.undo.stack.redo(), weight)


def undo_or_redo(
    window,
    rng: random.Random,
    weight: float = 1.0,
    undo_share: float = 0.6,
    when: Callable[[int], bool] | None = None,
) -> Action:
    """Undo (``undo_share`` of the time) or redo."""

    def one() -> None:
        stack = window.undo.stack
        (stack.undo if rng.random() < undo_share else stack.redo)()

    return Action("undo/redo", one, weight, when)


def resize(
    widget: QWidget,
    rng: random.Random,
    *,
    widths: tuple[int, int] | Sequence[int],
    heights: tuple[int, int] | Sequence[int],
    weight: float = 1.0,
    when: Callable[[int], bool] | None = None,
    name: str = "resize",
) -> Action:
    """Resize ``widget``: a pair is an inclusive range, a longer sequence a list of sizes."""

    def one(values) -> int:
        values = tuple(values)
        return rng.randint(*values) if len(values) == 2 else rng.choice(values)

    return Action(name, lambda: widget.resize(one(widths), one(heights)), weight, when)


def switch_theme(
    window, rng: random.Random, weight: float = 1.0, when: Callable[[int], bool] | None = None
) -> Action:
    """Switch the theme to light or dark (the whole window restyles)."""
    return Action(
        "theme", lambda: window.themes.set_mode(rng.choice(("light", "dark"))), weight, when
    )


def switch_large_fonts(
    window, rng: random.Random, weight: float = 1.0, when: Callable[[int], bool] | None = None
) -> Action:
    """Turn large fonts on or off."""
    return Action(
        "large fonts", lambda: window.themes.set_large_fonts(rng.random() < 0.5), weight, when
    )


def switch_language(
    window,
    rng: random.Random,
    languages: Sequence[str] = ("en", "pt_BR"),
    weight: float = 1.0,
    when: Callable[[int], bool] | None = None,
) -> Action:
    """Switch the interface's language live, through View → Language (the window rebuilds).

    A test that uses it restores English at its end (``install_translations(app, "en")``).
    """

    def switch() -> None:
        code = rng.choice(tuple(languages))
        action = window.findChild(QAction, f"action_language_{code}")
        assert action is not None, code
        action.trigger()

    return Action("language", switch, weight, when)


def unwind(window) -> int:
    """Undo all the way back (the history must walk back whole); returns the steps undone."""
    undone = 0
    while window.undo.stack.canUndo():
        window.undo.stack.undo()
        undone += 1
    QApplication.processEvents()
    return undone


# --- the mouse ---------------------------------------------------------------------------------
def send_mouse_move(widget: QWidget, x: float, y: float) -> None:
    """Deliver a mouse move at (x, y) to ``widget`` directly (no cursor, no button)."""
    pos = QPointF(x, y)
    event = QMouseEvent(QEvent.Type.MouseMove, pos, widget.mapToGlobal(pos),
                        Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                        Qt.KeyboardModifier.NoModifier)  # fmt: skip
    QApplication.sendEvent(widget, event)


def rest_mouse(rng: random.Random, widget: QWidget) -> None:
    """Move the mouse (QTest: a real cursor move) to a random point of ``widget``, if it is
    shown and larger than 2 px each way."""
    if not widget.isVisible() or widget.width() <= 2 or widget.height() <= 2:
        return
    QTest.mouseMove(widget, QPoint(rng.randrange(widget.width()), rng.randrange(widget.height())))


def rest_mouse_on_any(rng: random.Random, panel: QWidget) -> None:
    """Rest the mouse on a random visible child of ``panel`` larger than 4 px."""
    widgets = [
        w for w in panel.findChildren(QWidget) if w.isVisible() and min(w.width(), w.height()) > 4
    ]
    if widgets:
        rest_mouse(rng, rng.choice(widgets))


# --- edits of any field ------------------------------------------------------------------------
WORDS = ("o", "gato", "subiu", "no", "telhado", "banco", "praça", "the", "river", "bank", ",")


def random_value(rng: random.Random, field):
    """A random value for ``field``: mostly valid, small enough to stay quick (None: none)."""
    kind = field.kind
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "choice":
        return rng.choice(field.choices)
    if kind == "int":
        lo = int(field.lo if field.lo is not None else 0)
        hi = int(field.hi if field.hi is not None else lo + 100)
        return rng.randint(lo, min(hi, lo + 40))
    if kind == "float":
        lo = float(field.lo if field.lo is not None else -10.0)
        hi = float(field.hi if field.hi is not None else lo + 20.0)
        if lo > 0 and hi / lo > 100:
            return math.exp(rng.uniform(math.log(lo), math.log(min(hi, lo * 1e4))))
        return rng.uniform(lo, min(hi, lo + 100.0))
    if kind == "texts" and field.name == "tokens":
        return tuple(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
    return None


def edit_any_field(rng: random.Random, document) -> None:
    """Set a random field of a random topic of ``document`` to a random value; a refused
    value is part of the soak (it must change nothing)."""
    topic = rng.choice(list(document))
    field = rng.choice(topic.FIELDS)
    value = random_value(rng, field)
    if value is None:
        return
    with contextlib.suppress(StateError):
        topic.update(**{field.name: value})
