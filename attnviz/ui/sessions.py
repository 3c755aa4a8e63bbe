"""Open, save and recent session files for the main window, with an unsaved-changes prompt.

"Modified" means the undo stack is not at its clean index: saving marks it clean, and
undoing back to the saved state clears the window's modified marker again. Every dialog
goes through a small method (``_ask_open_path``, ``_ask_save_path``, ``_ask_unsaved``,
``_show_error``) so tests can replace it.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSettings, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from attnviz.model.document import Document
from attnviz.model.fields import StateError
from attnviz.model.safe_io import clean_stale_temps, shown_path
from attnviz.model.session import (
    SUFFIX,
    SessionError,
    model_needed,
    parse_session,
    save_session,
    validate_session,
)
from attnviz.model.topic import Topic
from attnviz.ui.undo import UndoController

log = logging.getLogger("attnviz.sessions")

RECENT_KEY = "sessions/recent"
MAX_RECENT = 8


def session_paths(mime) -> list[Path]:
    """The local ``.attnviz`` files among the URLs of a drag's mime data."""
    if not mime.hasUrls():
        return []
    paths = [Path(u.toLocalFile()) for u in mime.urls() if u.isLocalFile()]
    return [p for p in paths if p.suffix.lower() == SUFFIX]


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long, a NUL byte
        return False


class SessionController(QObject):
    """File actions of the window: Open, Save, Save As, recent files, drag-and-drop.

    Parameters
    ----------
    window : QMainWindow
        Parent of the dialogs; its title shows the file name and modified marker, and a
        session file dropped onto it is opened.
    document : Document (or a lone Topic)
        What a session holds.
    undo : UndoController
        Its stack's clean state is "saved"; opening a file starts a fresh history.

    Attributes
    ----------
    layout_provider : callable
        Returns the layout name stored in a saved session (the window sets it).
    """

    sigPathChanged = Signal(object)  # (Qt naming): Path or None
    sigLayoutLoaded = Signal(str)  # (Qt naming): layout name of an opened file

    def __init__(self, window, document, undo: UndoController) -> None:
        super().__init__(window)
        self.window = window
        if isinstance(document, Topic):
            document = (
                undo.document
                if undo.document[document.NAME] is document
                else Document(**{document.NAME: document})
            )
        self.document = document
        self.undo = undo
        self.path: Path | None = None
        self._opening = 0  # counts opens: a session waiting for its model checks it
        self.layout_provider = lambda: ""
        self.open_action = self._action(self.tr("&Open…"), QKeySequence.StandardKey.Open)
        self.open_action.triggered.connect(self._on_q_open)
        self.save_action = self._action(self.tr("&Save"), QKeySequence.StandardKey.Save)
        self.save_action.triggered.connect(self.save)
        self.save_as_action = self._action(self.tr("Save &As…"), QKeySequence.StandardKey.SaveAs)
        self.save_as_action.triggered.connect(self.save_as)
        self.recent_menu = QMenu(self.tr("Open &Recent"), window)
        self.recent_menu.setObjectName("menu_recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._fill_recent()
        undo.stack.cleanChanged.connect(self._update_title)
        self.clean_recent_folders()
        window.setAcceptDrops(True)
        window.installEventFilter(self)
        self._update_title()

    def retranslate(self) -> None:
        """Texts in the language running now (after View → Language)."""
        self.open_action.setText(self.tr("&Open…"))
        self.save_action.setText(self.tr("&Save"))
        self.save_as_action.setText(self.tr("Save &As…"))
        self.recent_menu.setTitle(self.tr("Open &Recent"))
        self._fill_recent()
        self._update_title()

    def _action(self, text: str, key) -> QAction:
        action = QAction(text, self.window)
        action.setShortcut(QKeySequence(key))
        self.window.addAction(action)
        return action

    # --- files -------------------------------------------------------------------------
    def open_path(self, path) -> bool:
        """Open the session at ``path`` (no prompt); show why and change nothing on failure.

        A session showing a real model's head needs that model loaded and its sentence run
        (seconds): that happens first on the model controller's worker, with progress and
        cancel, and the session opens when it is done (True here means "opening").
        """
        path = Path(path)
        # Any open still waiting for its model is superseded by this one.
        self._opening += 1
        ticket = self._opening
        try:
            data = parse_session(path)
        except SessionError as exc:
            return self._refuse(path, exc)
        model = model_needed(data)
        loader = getattr(self.window, "models", None)
        if model is not None and loader is not None and _capture_missing(model):
            loader.warm(
                *model,
                then=lambda: ticket == self._opening and self._open_parsed(path, data),
                fail=lambda message: ticket == self._opening and self._refuse(path, message),
            )
            return True
        return self._open_parsed(path, data)

    def _open_parsed(self, path: Path, data) -> bool:
        try:
            snapshot, layout = validate_session(data, name=path.name)
            # One step, so a refused value can never leave the document half opened.
            self.document.restore(snapshot)
        except (SessionError, StateError) as exc:
            return self._refuse(path, exc)
        self.undo.clear()
        self._set_path(path)
        self.sigLayoutLoaded.emit(layout)
        return True

    def _refuse(self, path: Path, why) -> bool:
        # In the log too (and so on the console of a start from a terminal or a file
        # manager), in case the dialog is not where the user looks.
        log.warning("could not open the session %s: %s", shown_path(path), why)
        self._show_error(self.tr("Could not open the session"), str(why))
        if not path.exists():
            self._forget_recent(path)
        return False

    def save_to(self, path) -> bool:
        """Save to ``path`` atomically; on failure show why (the old file stays intact)."""
        path = Path(path)
        try:
            save_session(self.document, path, layout=self.layout_provider() or "")
        except SessionError as exc:
            self._show_error(self.tr("Could not save the session"), str(exc))
            return False
        self.undo.stack.setClean()
        self._set_path(path)
        return True

    def save(self) -> bool:
        """Save to the current file, or ask for one."""
        if self.path is None:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        """Ask for a file name and save there."""
        chosen = self._ask_save_path()
        if not chosen:
            return False
        path = Path(chosen)
        if path.suffix.lower() != SUFFIX:
            path = path.with_name(path.name + SUFFIX)
        return self.save_to(path)

    def maybe_save(self) -> bool:
        """Ask to save unsaved changes; False means the user cancelled (keep the window)."""
        if self.undo.stack.isClean():
            return True
        answer = self._ask_unsaved()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def _on_q_open(self) -> None:
        if not self.maybe_save():
            return
        chosen = self._ask_open_path()
        if chosen:
            self.open_path(chosen)

    def _set_path(self, path: Path | None) -> None:
        self.path = path
        if path is not None:
            self._remember(path)
        self._update_title()
        self.sigPathChanged.emit(path)

    def _update_title(self, clean: bool | None = None) -> None:
        # cleanChanged passes the flag: the stack may already be going away when it fires.
        if clean is None:
            clean = self.undo.stack.isClean()
        name = self.path.name if self.path else self.tr("Untitled")
        self.window.setWindowFilePath(str(self.path) if self.path else "")
        self.window.setWindowTitle(f"{name}[*] — attnviz")
        self.window.setWindowModified(not clean)

    # --- recent files ------------------------------------------------------------------
    def recent_files(self) -> list[Path]:
        """The remembered files that still exist, most recent first."""
        stored = QSettings().value(RECENT_KEY, []) or []
        if not isinstance(stored, (list, tuple)):
            # One path is read back as text; a hand-edited file may hold anything
            # (@Point(1 2) reads as a QPoint, which cannot be iterated): kept if it is text.
            stored = [stored]
        paths = [Path(p) for p in stored if isinstance(p, str) and p and "\0" not in p]
        kept = [p for p in paths if _is_file(p)][:MAX_RECENT]
        if kept != paths:
            QSettings().setValue(RECENT_KEY, [str(p) for p in kept])
        return kept

    def clean_recent_folders(self) -> int:
        """Remove temporary files that killed saves left in the recent sessions' folders."""
        folders = {p.parent for p in self.recent_files()}
        return sum(clean_stale_temps(folder) for folder in folders)

    def _remember(self, path: Path) -> None:
        path = path.resolve()
        paths = [p for p in self.recent_files() if p.resolve() != path]
        QSettings().setValue(RECENT_KEY, [str(p) for p in [path, *paths][:MAX_RECENT]])
        self._fill_recent()

    def _forget_recent(self, path: Path) -> None:
        keep = [str(p) for p in self.recent_files() if p != path]
        QSettings().setValue(RECENT_KEY, keep)
        self._fill_recent()

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for i, path in enumerate(files, start=1):
            action = self.recent_menu.addAction(f"&{i} {path.name}")
            action.setToolTip(str(path))
            action.setData(str(path))
            action.triggered.connect(lambda _=False, p=path: self._open_recent(p))
        if not files:
            self.recent_menu.addAction(self.tr("(no recent sessions)")).setEnabled(False)
        self.recent_menu.setEnabled(True)

    def _open_recent(self, path: Path) -> None:
        if self.maybe_save():
            self.open_path(path)

    # --- drag and drop -----------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:
        if obj is self.window:
            kind = event.type()
            if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
                if session_paths(event.mimeData()):
                    event.acceptProposedAction()
                    return True
            elif kind == QEvent.Type.Drop:
                paths = session_paths(event.mimeData())
                if paths:
                    event.acceptProposedAction()
                    if self.maybe_save():
                        self.open_path(paths[0])
                    return True
        return super().eventFilter(obj, event)

    # --- dialogs (replaced in tests) ---------------------------------------------------
    def _file_filter(self) -> str:
        return (
            self.tr("attnviz sessions (*%1 *%2);;All files (*)")
            .replace("%1", SUFFIX)
            .replace("%2", SUFFIX.upper())
        )

    def _ask_open_path(self) -> str:
        path, _ = QFileDialog.getOpenFileName(
            self.window, self.tr("Open session"), self._start_dir(), self._file_filter()
        )
        return path

    def _ask_save_path(self) -> str:
        start = str(self.path) if self.path else self._start_dir()
        path, _ = QFileDialog.getSaveFileName(
            self.window, self.tr("Save session"), start, self._file_filter()
        )
        return path

    def _start_dir(self) -> str:
        recent = self.recent_files()
        return str(recent[0].parent) if recent else str(Path.home())

    def _ask_unsaved(self) -> QMessageBox.StandardButton:
        buttons = (
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        return QMessageBox.question(
            self.window,
            self.tr("Unsaved changes"),
            self.tr("The session has changes that are not saved. Save them first?"),
            buttons,
            QMessageBox.StandardButton.Save,
        )

    def _show_error(self, title: str, message: str) -> None:
        QMessageBox.warning(self.window, title, message)


def _capture_missing(model: tuple[str, str]) -> bool:
    """True when the sentence of ``model`` (folder, text) is not captured yet. The model
    chain is imported here, not with this module: a session that shows no model never
    loads it."""
    from attnviz.model import real_model

    return real_model.STORE.cached(*model) is None
