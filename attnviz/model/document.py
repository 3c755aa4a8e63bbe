"""The document: one instance of every topic, by name — what sessions save and undo records.

``document.changed(topic_name, names)`` follows every topic's own ``changed``. A snapshot
is ``{topic: {field: value}}``; :meth:`Document.restore` checks every topic's values on a
throwaway copy first, so a snapshot that does not fit changes nothing at all.
"""

from __future__ import annotations

import json
import math

from attnviz.core.value_text import brief
from attnviz.model import events
from attnviz.model.events import Signal
from attnviz.model.fields import StateError
from attnviz.model.topic import Topic
from attnviz.model.topics import topic_classes


class Document:
    """Every topic of the application, by name.

    Parameters
    ----------
    **topics : Topic, optional
        Existing topic instances to use (e.g. ``attention=state``); the others are new.
    """

    changed = Signal(str, frozenset)

    def __init__(self, **topics: Topic) -> None:
        classes = {cls.NAME: cls for cls in topic_classes()}
        unknown = set(topics) - set(classes)
        if unknown:
            raise StateError(f"unknown topic(s): {', '.join(sorted(unknown))}")
        self.topics: dict[str, Topic] = {}
        for name, cls in classes.items():
            topic = topics.get(name) or cls()
            self.topics[name] = topic
            # Forwarded in each phase of the topic's own emission: every model listener
            # of the document (history, resolvers) and of the topic runs before any view.
            for phase in events.PHASES:
                topic.changed.connect(self._forward(name, phase), phase=phase)

    def _forward(self, name: str, phase: int):
        def forward(names: frozenset) -> None:
            self.changed.emit(name, names, phase=phase)

        # Kept on the document: the topic holds functions strongly, and the closure only
        # refers to the document weakly through its bound emitter.
        return forward

    # --- access ------------------------------------------------------------------------
    def __getitem__(self, name: str) -> Topic:
        try:
            return self.topics[name]
        except KeyError:
            raise StateError(
                f"unknown topic {brief(name)}; topics: {', '.join(self.topics)}"
            ) from None

    def __getattr__(self, name: str) -> Topic:
        topics = self.__dict__.get("topics", {})
        if name in topics:
            return topics[name]
        raise AttributeError(name)

    def __iter__(self):
        return iter(self.topics.values())

    def snapshot(self) -> dict[str, dict]:
        """``{topic: snapshot}`` of every topic."""
        return {name: topic.snapshot() for name, topic in self.topics.items()}

    def restore(self, snapshot: dict[str, dict]) -> dict[str, frozenset]:
        """Set the topics named in ``snapshot``; all of them or, on any error, none."""
        self.check(snapshot)
        return {name: self.topics[name].update(**values) for name, values in snapshot.items()}

    def check(self, snapshot: dict[str, dict]) -> None:
        """Raise :class:`StateError` unless every topic accepts its values of ``snapshot``.

        Each topic's values are tried on a copy of the live topic, so a partial snapshot is
        judged against the fields it leaves as they are.
        """
        if not isinstance(snapshot, dict):
            raise StateError("a document snapshot must map topic names to fields")
        for name, values in snapshot.items():
            topic = self[name]
            if not isinstance(values, dict):
                raise StateError(f"{name}: the fields must be an object")
            trial = type(topic)(**topic.snapshot())
            try:
                trial.update(**values)
            except StateError as exc:
                raise StateError(f"{name}: {exc}") from None

    # --- writing by name ---------------------------------------------------------------
    def set_field(self, path: str, value) -> frozenset:
        """Set ``TOPIC.FIELD`` to ``value`` (already parsed); :class:`StateError` if invalid."""
        topic_name, _, field_name = path.partition(".")
        if not field_name:
            raise StateError(f"{brief(path)}: give TOPIC.FIELD, e.g. attention.d_k")
        topic = self[topic_name]
        topic.field(field_name)
        try:
            return topic.update(**{field_name: value})
        except StateError as exc:
            raise StateError(f"{path}: {exc}") from None

    def set_fields(self, values: dict) -> None:
        """Set ``{"TOPIC.FIELD": value}`` (already parsed), the fields of one topic together:
        ``low_freq_factor=5`` then ``high_freq_factor=8`` is one valid change even though
        the first alone, beside the default 4, is not. :class:`StateError` names the fields."""
        by_topic: dict[str, dict] = {}
        for path, value in values.items():
            topic_name, _, field_name = path.partition(".")
            if not field_name:
                raise StateError(f"{brief(path)}: give TOPIC.FIELD, e.g. attention.d_k")
            self[topic_name].field(field_name)
            by_topic.setdefault(topic_name, {})[field_name] = value
        for topic_name, fields in by_topic.items():
            try:
                self[topic_name].update(**fields)
            except StateError as exc:
                names = ", ".join(f"{topic_name}.{f}" for f in fields)
                raise StateError(f"{names}: {exc}") from None


class _NotFiniteError(Exception):
    pass


def parse_value(text: str):
    """A ``--set`` value: JSON when it parses (``8``, ``false``, ``[0, 64]``), else the text.

    JSON numbers that are not finite (``1e400``, ``NaN``) raise :class:`StateError`.
    """
    try:
        return json.loads(text, parse_constant=_not_finite, parse_float=_finite_float)
    except _NotFiniteError as exc:
        raise StateError(f"{exc} is not a finite number") from None
    except (ValueError, RecursionError):
        return text


def _not_finite(name: str):
    raise _NotFiniteError(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFiniteError(text if len(text) < 40 else text[:37] + "...")
    return value


def field_records() -> list[dict]:
    """Every topic's fields as JSON-ready records (``--list-fields --json``): ``field``
    (``topic.name``, what ``--set`` takes), ``kind``, ``min``/``max`` (numbers and entries;
    None: unbounded), ``choices``, ``max_len``, ``default`` (None for a matrix that follows
    the other fields), ``doc``, ``undoable`` (False for selections)."""
    out = []
    for cls in topic_classes():
        for f in cls.FIELDS:
            default = f.default
            if f.kind in ("matrix", "optmatrix"):
                default = None
            elif isinstance(default, tuple):
                default = [list(d) if isinstance(d, tuple) else d for d in default]
            out.append(
                {
                    "field": f"{cls.NAME}.{f.name}",
                    "kind": f.kind,
                    "min": f.lo,
                    "max": f.hi,
                    "choices": list(f.choices),
                    "max_len": f.max_len,
                    "default": default,
                    "doc": f.doc,
                    "undoable": not f.browse,
                }
            )
    return out


def field_listing() -> str:
    """Every topic's fields with type, range and default, one per line (``--list-fields``)."""
    lines = []
    for cls in topic_classes():
        for f in cls.FIELDS:
            lines.append(f"{cls.NAME}.{f.name}\t{f.describe()}\t{f.doc}")
    return "\n".join(lines)
