"""Presets of the topics other than attention: ``resources/presets/<topic>/<id>.json``.

A topic preset sets fields of one topic by name (``{"format": 1, "id": ..., "topic":
"positions", "title": ..., "fields": {...}}``), e.g. the RoPE settings of a real model.
:func:`document_preset_values` turns any preset id — an attention preset or a topic
preset — into ``{topic: values}`` for :meth:`Document.restore`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from attnviz.model.presets import load_preset, preset_ids, preset_state_values, read_preset_file
from attnviz.paths import resource

_FORMAT = 1


@dataclass(frozen=True)
class TopicPreset:
    """Named settings of one topic."""

    id: str
    topic: str
    title: str
    source: str
    fields: dict


@cache
def topic_preset_ids(topic: str) -> tuple[str, ...]:
    """The ids of the presets of ``topic``, sorted (none for a topic without a folder)."""
    folder = resource("presets", topic)
    if not folder.is_dir():
        return ()
    return tuple(sorted(p.stem for p in folder.glob("*.json")))


@cache
def load_topic_preset(topic: str, preset_id: str) -> TopicPreset:
    """Load preset ``preset_id`` of ``topic``; ``ValueError`` when unknown or malformed."""
    if preset_id not in topic_preset_ids(topic):
        known = ", ".join(topic_preset_ids(topic)) or "none"
        raise ValueError(f"unknown {topic} preset {preset_id!r}; known: {known}")
    data = read_preset_file(resource("presets", topic, f"{preset_id}.json"))
    if data.get("format") != _FORMAT or data.get("topic") != topic:
        raise ValueError(f"preset {preset_id!r} is not a {topic} preset of format {_FORMAT}")
    fields = dict(data["fields"])
    fields.setdefault("preset_id", preset_id)
    return TopicPreset(
        preset_id, topic, data.get("title", preset_id), data.get("source", ""), fields
    )


def preset_topic(preset_id: str) -> str | None:
    """The topic a preset id belongs to (``attention`` for the sentence presets)."""
    from attnviz.model.topics import topic_names

    if preset_id in preset_ids():
        return "attention"
    for topic in topic_names():
        if preset_id in topic_preset_ids(topic):
            return topic
    return None


def all_preset_ids() -> tuple[str, ...]:
    """Every preset id of every topic."""
    from attnviz.model.topics import topic_names

    ids = list(preset_ids())
    for topic in topic_names():
        if topic != "attention":
            ids += topic_preset_ids(topic)
    return tuple(ids)


def document_preset_values(preset_id: str) -> dict[str, dict]:
    """``{topic: values}`` that show preset ``preset_id``; ``ValueError`` when unknown."""
    topic = preset_topic(preset_id)
    if topic is None:
        raise ValueError(f"unknown preset {preset_id!r}; known: {', '.join(all_preset_ids())}")
    if topic == "attention":
        preset = load_preset(preset_id)
        # A sentence preset also sets the precision of the document it follows, and may
        # name the real model its heads are shaped after (``"memory": {"model": ...}``).
        values = {
            "attention": preset_state_values(preset),
            "display": {"decimals": preset.decimals},
        }
        memory = preset.extra.get("memory")
        if isinstance(memory, dict):
            values["memory"] = dict(memory)
        return values
    return {topic: dict(load_topic_preset(topic, preset_id).fields)}
