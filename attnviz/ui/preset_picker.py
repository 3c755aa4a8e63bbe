"""The toolbar's preset picker: every preset, grouped, and what is shown when none is.

The sentence presets come first, in the order the README and the chapter give them (the
hand-worked example first), then the RoPE settings of real models (the positions
topic's presets). Group names are headings that cannot be picked. When the document shows
no preset — a real model's head, or a sentence edited away from its preset — the box does
not go blank: its first entry (hidden from the list) names the model, or says "—".
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox

from attnviz.model.presets import preset_ids, preset_title
from attnviz.model.topic_presets import load_topic_preset, topic_preset_ids
from attnviz.ui.heatmap_look import model_name
from attnviz.ui.preset_strings import preset_text

#: The sentence presets in a reading order; any other shipped one follows, sorted.
SENTENCE_ORDER = (
    "banco",
    "banco-dinheiro",
    "lesson-sqrt-dk",
    "blog-2d",
    "backward-reference",
    "gato",
    "cachorro",
    "long-sentence",
    "frase-longa",
    "heads",
    "heads-2d",
    "qwen-heads",
    "previous-token-head",
    "content-head",
)
#: The RoPE presets in a reading order (the teaching head, then real models, then ALiBi).
POSITIONS_ORDER = ("rope-clock", "rope-llama3.1", "rope-yarn-qwen2.5", "alibi-vs-rope")
#: Item data of the first entry: what the document shows when it shows no preset.
NO_PRESET = ""


def _ordered(ids, order) -> list[str]:
    first = [pid for pid in order if pid in ids]
    return first + sorted(pid for pid in ids if pid not in first)


def preset_groups() -> list[tuple[str, list[tuple[str, str]]]]:
    """``(heading, [(id, title), ...])`` of each group, titles in the UI's language; a
    preset whose file cannot be read is left out (it must not keep the window closed)."""
    out = []
    for topic, heading in (
        ("attention", QCoreApplication.translate("MainWindow", "Sentences")),
        ("positions", QCoreApplication.translate("MainWindow", "RoPE settings of real models")),
    ):
        if topic == "attention":
            ids, order = preset_ids(), SENTENCE_ORDER
        else:
            ids, order = topic_preset_ids(topic), POSITIONS_ORDER
        entries = []
        for pid in _ordered(ids, order):
            try:
                title = (
                    preset_title(pid)
                    if topic == "attention"
                    else load_topic_preset(topic, pid).title
                )
            except (ValueError, KeyError, OSError):
                continue
            entries.append((pid, preset_text(title)))
        if entries:
            out.append((heading, entries))
    return out


def fill_picker(combo: QComboBox) -> None:
    """Fill ``combo`` with the first (no preset) entry, then every group."""
    model = QStandardItemModel(combo)
    none = QStandardItem("—")
    none.setData(NO_PRESET, Qt.ItemDataRole.UserRole)
    model.appendRow(none)
    for heading, entries in preset_groups():
        item = QStandardItem(heading)
        item.setFlags(Qt.ItemFlag.NoItemFlags)  # a heading: not to be picked
        font = QFont(combo.font())
        font.setBold(True)
        item.setFont(font)
        model.appendRow(item)
        for pid, title in entries:
            entry = QStandardItem(title)
            entry.setData(pid, Qt.ItemDataRole.UserRole)
            entry.setToolTip(title)
            model.appendRow(entry)
    combo.setModel(model)
    combo.view().setRowHidden(0, True)


def titles(combo: QComboBox) -> list[tuple[str, str]]:
    """``(id, title)`` of every preset the picker offers, in its order."""
    out = []
    for i in range(combo.count()):
        pid = combo.itemData(i)
        if pid:
            out.append((pid, combo.itemText(i)))
    return out


def show_current(combo: QComboBox, document, *, positions_first: bool = False) -> None:
    """Show the preset the document shows: the attention topic's, or the positions
    topic's when ``positions_first`` (one was picked last); else the first entry, naming
    the open model or saying "—"."""
    attention = document["attention"]
    pid = document["positions"].preset_id if positions_first else attention.preset_id
    index = combo.findData(pid) if pid else -1
    if index > 0:
        combo.setCurrentIndex(index)
        return
    combo.setItemText(0, no_preset_text(attention))
    combo.setCurrentIndex(0)


def no_preset_text(attention) -> str:
    """The first entry's text: "Model: <name>" while a real model's head is shown, else
    "—"."""
    name = model_name(attention)
    return (
        QCoreApplication.translate("MainWindow", "Model: %1").replace("%1", name) if name else "—"
    )
