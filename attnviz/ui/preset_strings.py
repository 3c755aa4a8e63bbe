"""Preset and experiment titles of the shipped presets, marked for translation.

Generated from resources/presets/*.json by packaging/update_translations.py (make
translations): do not edit. The presets are data, out of lupdate's sight; this list puts
their titles in the .ts, and :func:`preset_text` shows them in the UI's language.
"""

# ruff: noqa: E501

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

TITLES = (
    QT_TRANSLATE_NOOP("Preset", "Backward pass of one head: the reference run"),
    QT_TRANSLATE_NOOP("Preset", "The same “banco”, now money: Fui ao banco sacar dinheiro"),
    QT_TRANSLATE_NOOP("Preset", "Give “sacar” and “dinheiro” the value [1, 0]"),
    QT_TRANSLATE_NOOP("Preset", "seat"),
    QT_TRANSLATE_NOOP("Preset", "money"),
    QT_TRANSLATE_NOOP("Preset", "Hand-worked example: sentei · banco · praça"),
    QT_TRANSLATE_NOOP("Preset", "Give “praça” the value [0, 1]"),
    QT_TRANSLATE_NOOP("Preset", "Move the query of “banco” to [1, 0]"),
    QT_TRANSLATE_NOOP("Preset", "Zero the query of “banco”"),
    QT_TRANSLATE_NOOP("Preset", "Orthogonal query and key: a score of zero"),
    QT_TRANSLATE_NOOP("Preset", "No positions: swapping words only permutes the outputs"),
    QT_TRANSLATE_NOOP("Preset", "A content head: “ele” finds “gato” through the slow RoPE pairs"),
    QT_TRANSLATE_NOOP("Preset", "A longer Portuguese sentence, read row by row"),
    QT_TRANSLATE_NOOP("Preset", "Causal mask: one sentence, four next-token examples"),
    QT_TRANSLATE_NOOP("Preset", "Two heads over 2-D embeddings: drag a word"),
    QT_TRANSLATE_NOOP("Preset", "Eight heads sharing two KV heads: “o banco da praça…”"),
    QT_TRANSLATE_NOOP("Preset", "Why divide by √d_k: a mild preference inflated by d_k = 256"),
    QT_TRANSLATE_NOOP("Preset", "A longer sentence, read row by row"),
    QT_TRANSLATE_NOOP("Preset", "A previous-token head: its scores live in the fast RoPE pairs"),
    QT_TRANSLATE_NOOP("Preset", "The lesson's Qwen: 24 query heads sharing 4 KV heads"),
    QT_TRANSLATE_NOOP("Preset", "ALiBi beside RoPE: two ways to make distance matter"),
    QT_TRANSLATE_NOOP("Preset", "RoPE as clocks: a small teaching head"),
    QT_TRANSLATE_NOOP("Preset", "Llama 3.1: base 500,000, Llama 3 scaling ×8 from 8,192 tokens"),
    QT_TRANSLATE_NOOP("Preset", "Qwen2.5: base 1,000,000, YaRN ×4 from 32,768 tokens"),
)


def preset_text(text: str) -> str:
    """A preset or experiment title in the UI's language (unchanged when not translated)."""
    return QCoreApplication.translate("Preset", text)
