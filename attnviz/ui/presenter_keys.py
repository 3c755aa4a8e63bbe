"""The presenter's keys: what each key does on the stage, the key line that names them, and
when a focused widget keeps a key for itself.

A lecturer steps with a presenter remote (PageDown/PageUp, B or . for black) or with the
keyboard: → or Space forward, ← or Backspace back, Home and End to a lesson's first and
last step. Those keyboard keys also move a text cursor and type: a focused text field or
spin box keeps every key it would use (Qt says so by accepting the key's
``ShortcutOverride``, as it does before a window's shortcuts), so typing "64" and moving
the cursor in a spin box on the stage never steps the slides. The remote's PageDown and
PageUp always step, whatever has the focus: a remote has no other way to go on.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QEvent, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import QWidget

_C = "Presentation"

NEXT_KEYS = (Qt.Key.Key_PageDown, Qt.Key.Key_Right, Qt.Key.Key_Space)
PREVIOUS_KEYS = (Qt.Key.Key_PageUp, Qt.Key.Key_Left, Qt.Key.Key_Backspace)
FIRST_KEYS = (Qt.Key.Key_Home,)
LAST_KEYS = (Qt.Key.Key_End,)
BLANK_KEYS = (Qt.Key.Key_B, Qt.Key.Key_Period)
POINTER_KEYS = (Qt.Key.Key_H,)
LESSON_LIST_KEYS = (Qt.Key.Key_L,)
LEAVE_KEYS = (Qt.Key.Key_Escape,)
#: A presenter remote's stepping keys: they step whatever widget has the focus.
REMOTE_KEYS = (Qt.Key.Key_PageDown, Qt.Key.Key_PageUp)
#: Keys that hand a text field's focus back to the stage after the field has used them.
COMMIT_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
#: With one of these held a key is a shortcut of its own (Ctrl+Home), not the presenter's.
CHORD = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.AltModifier
    | Qt.KeyboardModifier.MetaModifier
)

#: The keys the key line names for each action (the others do the same, unnamed).
_SHOWN = {
    "next": (Qt.Key.Key_Right, Qt.Key.Key_Space),
    "back": (Qt.Key.Key_Left, Qt.Key.Key_Backspace),
    "lessons": LESSON_LIST_KEYS,
    "black": (Qt.Key.Key_B,),
    "pointer": POINTER_KEYS,
    "leave": LEAVE_KEYS,
}
_ACTIONS = {
    "next": QT_TRANSLATE_NOOP("Presentation", "%1 next"),
    "next lesson": QT_TRANSLATE_NOOP("Presentation", "%1 next lesson"),
    "back": QT_TRANSLATE_NOOP("Presentation", "%1 back"),
    "lessons": QT_TRANSLATE_NOOP("Presentation", "%1 lessons"),
    "black": QT_TRANSLATE_NOOP("Presentation", "%1 black"),
    "pointer": QT_TRANSLATE_NOOP("Presentation", "%1 pointer"),
    "leave": QT_TRANSLATE_NOOP("Presentation", "%1 leave"),
}
#: Arrows read the same in every language, and shorter than "Right" or "Direita".
_GLYPHS = {Qt.Key.Key_Right: "→", Qt.Key.Key_Left: "←"}
NBSP = "\u00a0"
#: Between two keys of the key line: where the line may wrap.
SEPARATOR = " · "


def key_name(key: Qt.Key) -> str:
    """``key`` as the UI's language names it (Qt's own names: "Espaço" in Portuguese)."""
    if key in _GLYPHS:
        return _GLYPHS[key]
    return QKeySequence(key).toString(QKeySequence.SequenceFormat.NativeText)


def key_line(next_step: str | None) -> str:
    """The stage's key line in the language running now.

    ``next_step`` says what a step forward does: ``"next"`` (the next step), ``"next
    lesson"`` (at a lesson's last step) or None (the last step of the last lesson).
    """
    actions = ([next_step] if next_step else []) + ["back", "lessons", "black", "pointer", "leave"]
    parts = []
    for action in actions:
        keys = "/".join(key_name(k) for k in _SHOWN["next" if action == "next lesson" else action])
        text = QCoreApplication.translate(_C, _ACTIONS[action]).replace("%1", keys)
        parts.append(text.replace(" ", NBSP))  # the line wraps between keys only
    return SEPARATOR.join(parts)


def wants_key(widget: QWidget | None, key: Qt.Key, text: str = "") -> bool:
    """True when ``widget`` uses ``key`` itself (a text field moves its cursor with →, types
    a space or a dot), so the presenter must leave it alone. Qt asks the same before a
    window's shortcuts: the widget accepts the key's ``ShortcutOverride``."""
    if widget is None:
        return False
    event = QKeyEvent(QEvent.Type.ShortcutOverride, key, Qt.KeyboardModifier.NoModifier, text)
    event.ignore()
    QCoreApplication.sendEvent(widget, event)
    return event.isAccepted()


def takes_text(widget: QWidget | None) -> bool:
    """True for a widget that types text (a text field, a spin box)."""
    return wants_key(widget, Qt.Key.Key_A, "a")
