"""Guided lessons as data: ``resources/lessons/<id>.json``, loaded and validated (no Qt).

Each step of a lesson names an optional preset, the fields it sets (``{"topic.field":
value}``), the panels to show, a cell, row or column to highlight, a caption in English and
Brazilian Portuguese, and the numbers the caption quotes with where each comes from, so a
test checks every quoted number against what the panels compute (the file format is in
``resources/lessons/README.md``). Steps are scenes, not edits: step k shows the defaults,
then steps 0 … k in order, so stepping back, a slide and a test all see the same state. A
broken file (unknown topic, field, panel or preset, a value a topic refuses on a throwaway
:class:`Document`, a missing caption) is refused with a :class:`LessonError` naming the
file, the step and why. Playing a step and checking what the panels show of it is
:mod:`attnviz.model.lesson_check`.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.panels import panel_spec
from attnviz.model.quotes import (  # the lesson API names them too
    DERIVED,
    OPS,
    parse_number,
    portuguese_number,
)
from attnviz.model.safe_io import FileRefused, read_text_limited
from attnviz.model.topic_presets import all_preset_ids, document_preset_values
from attnviz.paths import resource

FORMAT = 1
#: Languages every caption and title is written in.
LANGS = ("en", "pt_BR")
ID_RE = re.compile(r"^[a-z][a-z0-9-]{0,63}$")
#: Panels whose views can spotlight a cell, a row or a column.
HIGHLIGHT_PANELS = ("heatmap",)
HIGHLIGHT_KINDS = ("cell", "row", "column")
_LESSON_KEYS = {"format", "id", "title", "source", "order", "steps"}
_STEP_KEYS = {"preset", "set", "panels", "highlight", "caption", "quotes"}
_QUOTE_KEYS = {"text", "value", "tol", "factor", "bound", "from", "label", "on"}
_MAX_LABEL = 60
_SOURCE_KINDS = ("panel", "resolver", "field", "derived", "product", "sum")
_MAX_FILE = 2 * 2**20


class LessonError(ValueError):
    """A lesson file that cannot be used: ``file``, ``step`` (None: the whole file) and why."""

    def __init__(self, file: str, step: int | None, reason: str) -> None:
        where = file if step is None else f"{file}, step {step + 1}"
        super().__init__(f"{where}: {reason}")
        self.file, self.step, self.reason = file, step, reason


@dataclass(frozen=True)
class Highlight:
    """A cell (``index`` = (row, column)), a row or a column of one panel's view."""

    panel: str
    kind: str
    index: tuple[int, ...]


@dataclass(frozen=True)
class Quote:
    """One number a caption quotes: its text in each language and where it comes from."""

    text: dict
    value: float
    tol: float
    factor: float | None
    source: dict
    bound: str | None = None
    #: What the number is, in each language, for the figure line of a slide (None: the
    #: panels draw it themselves); ``on``: the panel whose line says it.
    label: dict | None = None
    on: str | None = None

    def matches(self, computed: float) -> bool:
        """True when ``computed`` is the quoted number within the quote's tolerance (a
        ``bound`` of "below" or "above": when it is at most or at least the number)."""
        if not math.isfinite(computed):
            return False
        if self.bound is not None:
            return computed <= self.value if self.bound == "below" else computed >= self.value
        if self.factor is not None:
            if computed == 0 or self.value == 0 or (computed > 0) != (self.value > 0):
                return computed == self.value
            return abs(math.log(computed / self.value)) <= math.log(self.factor) + 1e-12
        return abs(computed - self.value) <= self.tol * (1 + 1e-9) + 1e-300


@dataclass(frozen=True)
class Step:
    """One scene of a lesson (see the module docstring)."""

    preset: str | None
    values: dict  # {topic: {field: value}} in the file's order
    panels: tuple[str, ...]
    highlight: Highlight | None
    caption: dict
    quotes: tuple[Quote, ...]

    def caption_in(self, lang: str) -> str:
        """The caption in ``lang`` (English for a language no lesson is written in)."""
        return self.caption.get(lang) or self.caption["en"]

    def fields(self) -> dict:
        """``{"topic.field": value}`` of the fields this step sets."""
        return {f"{t}.{f}": v for t, vals in self.values.items() for f, v in vals.items()}


@dataclass(frozen=True)
class Lesson:
    """A titled sequence of steps, loaded from ``path``."""

    id: str
    title: dict
    source: str
    steps: tuple[Step, ...]
    path: str
    order: int = 1000  # place in lists: the documents' order

    def title_in(self, lang: str) -> str:
        """The title in ``lang`` (English for a language no lesson is written in)."""
        return self.title.get(lang) or self.title["en"]

    @property
    def needs_model(self) -> bool:
        """True when a step opens a real model (``attention.head`` = ``model``): it plays
        only where torch and transformers run (the ``models`` extra)."""
        return any(_opens_model(step) for step in self.steps)

    def quoted_data(self, panel_id: str) -> frozenset:
        """What any step's quotes read that panel ``panel_id`` shows: its export arrays
        (``"dscores"``) and the paths of its resolver (``"attention:attention.entropy"``;
        the heatmap's resolver is ``attention``)."""
        resolver = panel_spec(panel_id).resolver

        def names(source: dict):
            for part in source.get("product", []) + source.get("sum", []):
                yield from names(part)
            if source.get("panel") == panel_id:
                yield source["data"]
            elif source.get("resolver") == resolver:
                yield f"{resolver}:{source.get('path', '')}"

        return frozenset(n for step in self.steps for q in step.quotes for n in names(q.source))

    def __len__(self) -> int:
        return len(self.steps)


# --- reading ---------------------------------------------------------------------------------
def lessons_dir() -> Path:
    """The folder of the shipped lessons."""
    return resource("lessons")


def lesson_paths() -> tuple[Path, ...]:
    """Every shipped lesson file, sorted by name."""
    folder = lessons_dir()
    return tuple(sorted(folder.glob("*.json"))) if folder.is_dir() else ()


@cache
def _shipped(panels: tuple[str, ...] | None, models: bool) -> tuple[Lesson, ...]:
    lessons = (load_lesson(p, panels=panels) for p in lesson_paths())
    kept = (x for x in lessons if models or not x.needs_model)
    return tuple(sorted(kept, key=lambda x: (x.order, x.id)))


def models_run() -> bool:
    """True when a real model can be opened here: torch and transformers are installed (the
    ``models`` extra) beside a numpy they import (transformers 5 needs ``numpy.exceptions``,
    numpy ≥ 1.25; the app's own floor is 1.24). Found without importing either: the Lessons
    dock asks at start-up."""
    from attnviz.core.hf_errors import transformers_available

    return transformers_available() and importlib.util.find_spec("numpy.exceptions") is not None


def shipped_lessons(panels: Collection[str] | None = None) -> tuple[Lesson, ...]:
    """Every shipped lesson, checked, in the documents' order (kept after the first call);
    :class:`LessonError` when one is broken. A lesson that opens a real model
    (:attr:`Lesson.needs_model`) is left out where none can be opened (:func:`models_run`,
    asked only when such a lesson is shipped)."""
    key = None if panels is None else tuple(sorted(panels))
    if not any(x.needs_model for x in _shipped(key, True)):
        return _shipped(key, True)
    return _shipped(key, models_run())


def lesson_by_id(lesson_id: str, panels: Collection[str] | None = None) -> Lesson:
    """The shipped lesson ``lesson_id``; ``KeyError`` naming the known ones otherwise."""
    lessons = shipped_lessons(panels)
    for lesson in lessons:
        if lesson.id == lesson_id:
            return lesson
    raise KeyError(f"unknown lesson {lesson_id!r}; lessons: {', '.join(x.id for x in lessons)}")


def load_lesson(path, *, panels: Collection[str] | None = None) -> Lesson:
    """Read and check the lesson file ``path``.

    ``panels`` are the panel ids a step may show (None: not checked, for a caller without
    the UI's list). Raises :class:`LessonError` naming the file, the step and the reason.
    """
    path = Path(path)
    name = path.name
    try:
        # A regular file of at most 2 MiB, read no further: a FIFO would block the reader
        # and a link to /dev/zero would fill the memory.
        text = read_text_limited(path, _MAX_FILE)
    except FileRefused as exc:  # "cannot read NAME: why": the error names the file once
        raise LessonError(name, None, "cannot be read: " + str(exc).rpartition(": ")[2]) from None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise LessonError(name, None, f"cannot be read: {exc}") from None
    return lesson_from_dict(data, name, panels=panels, stem=path.stem, path=str(path))


def lesson_from_dict(
    data, file: str, *, panels=None, stem: str | None = None, path: str = ""
) -> Lesson:
    """Check the JSON form of a lesson (``file`` names it in errors) and build it."""
    if not isinstance(data, dict):
        raise LessonError(file, None, "the file must hold one JSON object")
    _no_unknown(data, _LESSON_KEYS, file, None, "key")
    if data.get("format") != FORMAT:
        raise LessonError(file, None, f"format {data.get('format')!r} is not {FORMAT}")
    lesson_id = data.get("id")
    if not isinstance(lesson_id, str) or not ID_RE.match(lesson_id):
        raise LessonError(
            file,
            None,
            f"id {lesson_id!r}: lowercase letters, digits and '-', starting with a letter",
        )
    if stem is not None and stem != lesson_id:
        raise LessonError(file, None, f"id {lesson_id!r} differs from the file name {stem!r}")
    title = _texts(data.get("title"), file, None, "title")
    source = data.get("source", "")
    order = data.get("order", 1000)
    if not isinstance(source, str) or type(order) is not int:
        raise LessonError(file, None, "source must be text and order a whole number")
    raw_steps = data.get("steps")
    if not isinstance(raw_steps, list) or not raw_steps:
        raise LessonError(file, None, "steps must be a non-empty list")
    trial = Document()
    steps = []
    model = False  # from a step that opens a real model on: checked field by field
    for i, raw in enumerate(raw_steps):
        step = _step(raw, file, i, panels)
        model = model or _opens_model(step)
        try:
            if model:
                # Loading a list of lessons must not load a model (torch, seconds, or
                # nothing where the models extra is absent): each value is checked by its
                # field; `attnviz lessons --check` plays the steps whole.
                _check_values(trial, step)
            else:
                apply_step_values(trial, step)
        except (StateError, ValueError) as exc:
            raise LessonError(file, i, str(exc)) from None
        if step.highlight is not None and not model:
            _check_highlight(step.highlight, trial, file, i)
        steps.append(step)
    return Lesson(lesson_id, title, source, tuple(steps), path, order)


def _no_unknown(data: dict, known: set, file: str, step: int | None, what: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise LessonError(
            file,
            step,
            f"unknown {what}(s) {', '.join(map(repr, unknown))}; known: {', '.join(sorted(known))}",
        )


def _texts(value, file: str, step: int | None, what: str) -> dict:
    if not isinstance(value, dict):
        raise LessonError(file, step, f"{what} must give {' and '.join(LANGS)}")
    _no_unknown(value, set(LANGS), file, step, f"{what} language")
    for lang in LANGS:
        text = value.get(lang)
        if not isinstance(text, str) or not text.strip():
            raise LessonError(file, step, f"missing {what} in {lang}")
    return {lang: value[lang] for lang in LANGS}


def _step(raw, file: str, i: int, panels) -> Step:
    if not isinstance(raw, dict):
        raise LessonError(file, i, "a step must be a JSON object")
    _no_unknown(raw, _STEP_KEYS, file, i, "step key")
    preset = raw.get("preset")
    if preset is not None and preset not in all_preset_ids():
        raise LessonError(file, i, f"unknown preset {preset!r}")
    values = _values(raw.get("set", {}), file, i)
    shown = raw.get("panels")
    if not isinstance(shown, list) or not shown or not all(isinstance(p, str) for p in shown):
        raise LessonError(file, i, "panels must be a non-empty list of panel ids")
    if len(set(shown)) != len(shown):
        raise LessonError(file, i, "a panel is named twice")
    if panels is not None:
        for p in shown:
            if p not in panels:
                raise LessonError(file, i, f"unknown panel {p!r}; panels: {', '.join(panels)}")
    caption = _texts(raw.get("caption"), file, i, "caption")
    highlight = _highlight(raw.get("highlight"), shown, file, i)
    quotes = raw.get("quotes", [])
    if not isinstance(quotes, list):
        raise LessonError(file, i, "quotes must be a list")
    quoted = tuple(_quote(q, caption, file, i) for q in quotes)
    for q in quoted:
        if q.on is not None and q.on not in shown:
            raise LessonError(
                file,
                i,
                f"quote {q.text['en']!r} is on panel {q.on!r}, which the step does not show",
            )
    return Step(preset, values, tuple(shown), highlight, caption, quoted)


def _values(raw, file: str, i: int) -> dict:
    if not isinstance(raw, dict):
        raise LessonError(file, i, "set must map 'topic.field' to values")
    out: dict[str, dict] = {}
    probe = _probe_document()
    for path, value in raw.items():
        topic, _, field = path.partition(".")
        if not field:
            raise LessonError(file, i, f"{path!r}: write topic.field, e.g. attention.d_k")
        try:
            probe[topic].field(field)
        except StateError as exc:
            raise LessonError(file, i, f"{path}: {exc}") from None
        out.setdefault(topic, {})[field] = value
    return out


@cache
def _probe_document() -> Document:
    return Document()


def _highlight(raw, shown: list, file: str, i: int) -> Highlight | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or raw.get("panel") not in HIGHLIGHT_PANELS:
        raise LessonError(
            file,
            i,
            f"highlight must name a panel of {HIGHLIGHT_PANELS} and one "
            f"of {', '.join(HIGHLIGHT_KINDS)}",
        )
    _no_unknown(raw, {"panel", *HIGHLIGHT_KINDS}, file, i, "highlight key")
    kinds = [k for k in HIGHLIGHT_KINDS if k in raw]
    if len(kinds) != 1:
        raise LessonError(file, i, f"highlight one of {', '.join(HIGHLIGHT_KINDS)}")
    kind = kinds[0]
    index = raw[kind]
    index = tuple(index) if isinstance(index, list) else (index,)
    size = 2 if kind == "cell" else 1
    if len(index) != size or not all(type(x) is int and x >= 0 for x in index):
        raise LessonError(file, i, f"highlight {kind} needs {size} whole number(s) ≥ 0")
    if raw["panel"] not in shown:
        raise LessonError(file, i, f"the highlighted panel {raw['panel']!r} is not shown")
    return Highlight(raw["panel"], kind, index)


def _check_highlight(h: Highlight, doc: Document, file: str, i: int) -> None:
    att = doc.attention
    cols = att.n if att.matrix != "output" else int(np.asarray(att.v).shape[1])
    limits = {"row": (att.n,), "column": (cols,), "cell": (att.n, cols)}[h.kind]
    if any(x >= lim for x, lim in zip(h.index, limits, strict=True)):
        raise LessonError(
            file, i, f"highlight {h.kind} {list(h.index)} is outside the {att.n}×{cols} matrix"
        )


# --- quotes ----------------------------------------------------------------------------------
def _quote(raw, caption: dict, file: str, i: int) -> Quote:
    """One entry of a step's ``quotes``, checked against the step's ``caption``."""
    if not isinstance(raw, dict):
        raise LessonError(file, i, "a quote must be a JSON object")
    _no_unknown(raw, _QUOTE_KEYS, file, i, "quote key")
    texts = _quote_texts(raw.get("text"), caption, file, i)
    value, tol, factor, bound = _quote_numbers(raw, texts["en"], file, i)
    source = raw.get("from")
    _check_source(source, file, i)
    label = _quote_label(raw.get("label"), file, i)
    on = raw.get("on")
    if on is not None and not isinstance(on, str):
        raise LessonError(file, i, "a quote's 'on' names a panel of the step")
    return Quote(
        texts,
        float(value),
        float(tol),
        None if factor is None else float(factor),
        source,
        bound,
        label,
        on,
    )


def _quote_texts(text, caption: dict, file: str, i: int) -> dict:
    """The quote as each language's caption writes it (a string is the English one, its
    Portuguese form derived), refused unless each caption contains it."""
    if isinstance(text, str):
        texts = {"en": text, "pt_BR": portuguese_number(text)}
    elif (
        isinstance(text, dict)
        and set(text) == set(LANGS)
        and all(isinstance(t, str) for t in text.values())
    ):
        texts = dict(text)
    else:
        raise LessonError(file, i, "a quote's text must be a string or give en and pt_BR")
    for lang in LANGS:
        if not texts[lang] or texts[lang] not in caption[lang]:
            raise LessonError(file, i, f"the quoted {texts[lang]!r} is not in the {lang} caption")
    return texts


def _quote_numbers(raw: dict, text: str, file: str, i: int) -> tuple:
    """``(value, tol, factor, bound)`` of a quote whose English text is ``text``: value and
    tolerance default to what the text reads (the number and half a unit of its last
    digit), and a value given must agree with it."""
    parsed = parse_number(text)
    value = raw.get("value", parsed[0] if parsed else None)
    if not _finite(value):
        raise LessonError(file, i, f"quote {text!r}: give its value (a finite number)")
    if parsed is not None and "value" in raw and not math.isclose(parsed[0], value, rel_tol=1e-12):
        raise LessonError(file, i, f"quote {text!r} reads {parsed[0]}, not {value}")
    tol = raw.get("tol", parsed[1] if parsed else 0.0)
    factor = raw.get("factor")
    bound = raw.get("bound")
    if bound not in (None, "below", "above"):
        raise LessonError(file, i, f"quote {text!r}: bound is below or above")
    if not _finite(tol) or tol < 0 or (factor is not None and not (_finite(factor) and factor > 1)):
        raise LessonError(file, i, f"quote {text!r}: tol ≥ 0, factor > 1")
    return value, tol, factor, bound


def _quote_label(label, file: str, i: int) -> dict | None:
    """A quote's optional label in each language, refused when longer than
    :data:`_MAX_LABEL` characters."""
    if label is None:
        return None
    label = _texts(label, file, i, "a quote's label")
    if any(len(t) > _MAX_LABEL for t in label.values()):
        raise LessonError(file, i, f"a quote's label has at most {_MAX_LABEL} characters")
    return label


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


#: The keys each kind of quote source may have.
_SOURCE_KEYS = {
    "panel": {"panel", "data", "index"},
    "resolver": {"resolver", "path", "index"},
    "field": {"field", "index"},
    "derived": {"derived"},
    "product": {"product"},
    "sum": {"sum"},
}


def _check_source(src, file: str, i: int) -> None:
    """Refuse a quote's ``from`` unless it names one kind of source, with that kind's keys
    and known operations (the parts of a product or sum checked the same way)."""
    if not isinstance(src, dict):
        raise LessonError(file, i, "a quote needs 'from': where its number comes from")
    kinds = [k for k in _SOURCE_KINDS if k in src]
    if len(kinds) != 1:
        raise LessonError(file, i, f"a quote source is one of {', '.join(_SOURCE_KINDS)}")
    kind = kinds[0]
    _no_unknown(src, _SOURCE_KEYS[kind] | {"ops"}, file, i, "quote source key")
    _check_source_kind(src, kind, file, i)
    for op in src.get("ops", []):
        _check_op(op, file, i)


def _check_source_kind(src: dict, kind: str, file: str, i: int) -> None:
    """Refuse what the source's ``kind`` cannot name: a panel's unknown data, an unknown
    derived quantity, a private attribute on a resolver path, a product or sum of fewer
    than two (valid) sources."""
    if kind == "panel":
        from attnviz.model.panel_data import data_names

        if src.get("data") not in data_names(src["panel"]):
            raise LessonError(file, i, f"panel {src['panel']!r} has no data {src.get('data')!r}")
    elif kind == "derived" and src["derived"] not in DERIVED:
        raise LessonError(
            file, i, f"unknown derived quantity {src['derived']!r}; known: {', '.join(DERIVED)}"
        )
    elif kind == "resolver" and any(p.startswith("_") for p in str(src.get("path", "")).split(".")):
        raise LessonError(file, i, "a resolver path may not name private attributes")
    elif kind in ("product", "sum"):
        parts = src[kind]
        if not isinstance(parts, list) or len(parts) < 2:
            raise LessonError(file, i, f"{kind} needs a list of two or more sources")
        for part in parts:
            _check_source(part, file, i)


def _check_op(op, file: str, i: int) -> None:
    """Refuse an operation of a source's ``ops`` that is not one of :data:`OPS` given as a
    name (``"mean"``) or as ``{name: finite number}`` (mul, div, add and pow only so)."""
    name = (
        op
        if isinstance(op, str)
        else (next(iter(op)) if isinstance(op, dict) and len(op) == 1 else None)
    )
    arg_ok = isinstance(op, str) or _finite(next(iter(op.values())))
    if (
        name not in OPS
        or not arg_ok
        or (isinstance(op, str) and name in ("mul", "div", "add", "pow"))
    ):
        raise LessonError(file, i, f"unknown quote operation {op!r}; known: {', '.join(OPS)}")


# --- a step on a document --------------------------------------------------------------------
# Loading plays every step on a throwaway document to check its values, so applying a step
# lives with the schema; lesson_check builds on it (the other way round would be a circle).
def _opens_model(step: Step) -> bool:
    return step.values.get("attention", {}).get("head") == "model"


def _check_values(document: Document, step: Step) -> None:
    """Each value of ``step`` as its field takes it (type and range), without applying
    it; its preset must exist."""
    if step.preset is not None:
        document_preset_values(step.preset)
    for topic, values in step.values.items():
        for name, value in values.items():
            document[topic].field(name).coerce(value)


def apply_step_values(document: Document, step: Step) -> None:
    """Apply one step on top of ``document``: its preset, then its fields (per topic at once)."""
    if step.preset is not None:
        document.restore(document_preset_values(step.preset))
    if step.values:
        document.restore(step.values)
