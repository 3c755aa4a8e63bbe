"""The names of the token mixers in the interface's language (``MixersPanel`` context),
shared by the mixers panel and its decode pages."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

KIND_NAMES = {
    "softmax": QT_TRANSLATE_NOOP("MixersPanel", "softmax"),
    "window": QT_TRANSLATE_NOOP("MixersPanel", "sliding window"),
    "top_k": QT_TRANSLATE_NOOP("MixersPanel", "top-k"),
    "strided": QT_TRANSLATE_NOOP("MixersPanel", "strided"),
    "linear": QT_TRANSLATE_NOOP("MixersPanel", "linear"),
    "decayed": QT_TRANSLATE_NOOP("MixersPanel", "decayed (RetNet, Mamba-2)"),
    "deltanet": QT_TRANSLATE_NOOP("MixersPanel", "DeltaNet"),
    "gated_deltanet": QT_TRANSLATE_NOOP("MixersPanel", "Gated DeltaNet"),
}


def kind_name(kind: str) -> str:
    """The kind's name in the interface's language."""
    return QCoreApplication.translate("MixersPanel", KIND_NAMES[kind])
