"""The main window's docks on its screen: the first layout, its shares, one panel alone.

:class:`WindowLayout` is a part of :class:`~attnviz.ui.main_window.MainWindow` (it expects
the window's ``docks``, ``_areas``, ``settings`` and ``_focus_saved``): it sizes the window
for its screen (:meth:`WindowLayout.fit_screen`), lays the docks out as at a first start
(compact on a short window), splits them again in proportion after a large resize, keeps
the separators where they were when a panel is first built, shows one panel alone (View →
Focus on Panel) and saves and restores the layout.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QFontInfo
from PySide6.QtWidgets import QApplication, QDockWidget, QTabBar

from attnviz.model.panels import layout_version
from attnviz.ui.widgets.binding import blocked

#: The saved layout's version: it changes with the set of docks and their areas (the
#: table of panels), so a layout saved by another set is ignored.
LAYOUT_VERSION = layout_version()
#: Screens this wide or narrower open the window maximized (1280×720, 1366×768).
SMALL_SCREEN = 1366
#: The first layout's shares: the left column of the width, the views of the height.
DEFAULT_SPLIT = (0.38, 0.62)
#: A window fewer font lines tall than this gets the compact first layout.
COMPACT_LINES = 62
COMPACT_SPLIT = (0.42, 1.0)
#: In the compact layout, the docks of the bottom area that go left (the rest go right),
#: and the dock in front in each area.
COMPACT_AREAS = {"steps": "left"}
COMPACT_FRONT = {"left": "steps", "right": "heatmap"}
#: The compact layout's left column: the share of the width it takes for the panel in its
#: front (the steps ask for every key's column), at least (the first layout's share) and
#: at most; and the least it keeps when a wide view is brought forward on the right.
COMPACT_LEFT = (COMPACT_SPLIT[0], 0.55)
COMPACT_LEFT_FLOOR = 0.25
#: The order of the tabs in a group: the matrix and what reads it first, then the
#: chapter's other sections (positions, memory, long sequences, the RNN comparison).
TAB_ORDER = (
    "steps", "editor", "controls", "layers", "lessons",
    "heatmap", "entropy", "heads", "gradient", "positions", "memory", "overview", "tiles",
    "reach", "embedding",
)  # fmt: skip
#: A resize by more than this factor splits the docks again in proportion.
LARGE_RESIZE = 1.2
#: How long the docks must keep still before their shares are taken as the user's.
SPLIT_SETTLE_MS = 300
DOCK_AREAS = {
    "left": Qt.DockWidgetArea.LeftDockWidgetArea,
    "right": Qt.DockWidgetArea.RightDockWidgetArea,
    "bottom": Qt.DockWidgetArea.RightDockWidgetArea,
}


#: How far a restored window's frame may exceed its screen (the window manager's border).
MAX_FRAME_SLACK = 64
#: A restored window smaller than this shows no panel usably: taken as a broken value.
MIN_RESTORED = QSize(480, 320)


def saved_bytes(settings, key: str) -> QByteArray | None:
    """The bytes saved under ``key``, or None when there are none or the value is of
    another type (a hand-edited or foreign settings file: a string, a number, a list)."""
    try:
        value = settings.value(key)
    except (TypeError, ValueError, RuntimeError):
        return None  # a value the settings themselves cannot read back
    if isinstance(value, QByteArray):
        return value if not value.isEmpty() else None
    if isinstance(value, bytes | bytearray) and value:
        return QByteArray(bytes(value))
    return None


def dock_share(dock: QDockWidget, window) -> float:
    """The share of the window's width ``dock`` takes."""
    return dock.width() / max(1, window.width())


class WindowLayout:
    """The layout half of the main window (see the module docstring)."""

    _focus_saved: QByteArray | None

    def _init_layout(self) -> None:
        """The layout's own state; before the first :meth:`fit_screen`."""
        #: Open maximized (a projector's or a laptop's screen), see :meth:`fit_screen`.
        self.opens_maximized = False
        #: True when the saved window geometry was restored (:meth:`_restore_layout`).
        self.geometry_restored = False
        self._pending_default = False
        self._intended: tuple[float, float] | None = None
        # The docks' shares of the window, kept so that a large resize splits them again.
        self._split: tuple[QSize, tuple[float, float]] | None = None
        self._split_timer = QTimer(self)
        self._split_timer.setSingleShot(True)
        self._split_timer.setInterval(SPLIT_SETTLE_MS)
        self._split_timer.timeout.connect(self._remember_split)

    def _dock_sizes(self) -> list[tuple[list, list[int], Qt.Orientation]]:
        """The separators' places now, as :meth:`resizeDocks` takes them (shown docks)."""
        if not self.isVisible():
            return []
        out = []
        left, right, bottom = (self._docks_in(a)[:1] for a in ("left", "right", "bottom"))
        pairs = (
            (left + right, Qt.Orientation.Horizontal),
            (right + bottom, Qt.Orientation.Vertical),
        )
        for docks, orientation in pairs:
            if len(docks) == 2 and all(d.isVisible() and not d.isFloating() for d in docks):
                size = (
                    (lambda d: d.width())
                    if orientation == Qt.Orientation.Horizontal
                    else (lambda d: d.height())
                )
                out.append((docks, [size(d) for d in docks], orientation))
        return out

    def _restore_dock_sizes(self, sizes) -> None:
        for docks, values, orientation in sizes:
            self.resizeDocks(docks, values, orientation)

    def _docks_in(self, area: str) -> list[QDockWidget]:
        """The docks the first layout puts in ``area``, the one in front first."""
        placed = self._placed or self._areas
        docks = [d for p, d in self.docks.items() if placed[p] == area]
        front = COMPACT_FRONT.get(area) if self._placed else None

        def order(dock: QDockWidget) -> tuple[bool, int]:
            pid = dock.objectName().removeprefix("dock-")
            rank = TAB_ORDER.index(pid) if pid in TAB_ORDER else len(TAB_ORDER)
            return dock is not self.docks.get(front), rank

        return sorted(docks, key=order)

    def compact(self) -> bool:
        """True when the window is too short for the views above the steps in its font
        (a 1280×720 projector; 1920×1080 with Large Fonts): the first layout then puts the
        steps in front on the left and every view in one group on the right, so the
        heatmap keeps most of the height."""
        px = QFontInfo(QApplication.font()).pixelSize()
        return self.height() < COMPACT_LINES * px

    def _place(self) -> None:
        """Where each dock goes in the first layout: its own area, or the compact one."""
        if not self.compact():
            self._placed = {}
            return
        self._placed = {
            pid: (COMPACT_AREAS.get(pid, "right") if area == "bottom" else area)
            for pid, area in self._areas.items()
        }

    def _arrange_default(self) -> None:
        """Editing docks as tabs on the left; the heatmap and the other views as tabs on the
        right, the heatmap in front; the steps under them.

        Tabs rather than stacks keep the window within a 1280×720 projector.
        """
        self._place()
        for dock in self.docks.values():
            self.removeDockWidget(dock)
        for area in ("left", "right"):
            for dock in self._docks_in(area):
                self.addDockWidget(DOCK_AREAS[area], dock)
                dock.setFloating(False)
        right, bottom = self._docks_in("right"), self._docks_in("bottom")
        if bottom:
            if right:
                self.splitDockWidget(right[0], bottom[0], Qt.Orientation.Vertical)
            else:
                self.addDockWidget(DOCK_AREAS["bottom"], bottom[0])
        for area in ("left", "right", "bottom"):
            docks = self._docks_in(area)
            for dock in docks[1:]:
                self.tabifyDockWidget(docks[0], dock)
        for dock in self.docks.values():
            dock.setFloating(False)
            dock.show()
        for area in ("left", "right", "bottom"):
            docks = self._docks_in(area)
            if docks:
                docks[0].raise_()
        self._size_default()
        self._unelided_tabs()

    def fit_screen(self, available: QRect) -> None:
        """Size and lay the window out for a screen whose free area is ``available``: a
        screen of :data:`SMALL_SCREEN` pixels wide or less (a hall's 1280×720 projector, a
        laptop) gets the whole of it, maximized; a larger one 90 % of it."""
        self.opens_maximized = available.width() <= SMALL_SCREEN
        if self.opens_maximized:
            self.setGeometry(available)
        else:
            size = QSize(int(available.width() * 0.9), int(available.height() * 0.9))
            self.resize(size)
            self.move(available.center() - self.rect().center())
        self._arrange_default()

    def show_first(self) -> None:
        """Show the window as it opens: maximized when :meth:`fit_screen` said so (or a
        saved maximized geometry does).

        A maximized window is given the maximized size before it is shown: laid out at
        another size first, every panel would be laid out (and the heatmap's axes and
        labels fitted) twice before the first paint.
        """
        maximize = self.opens_maximized and not self.geometry_restored
        if maximize or self.windowState() & Qt.WindowState.WindowMaximized:
            self._take_maximized_geometry()
            self.showMaximized()
        else:
            self.show()

    def _take_maximized_geometry(self) -> None:
        """Take the screen's free area less the frame, as maximizing will (where the
        platform tells the frame before the first show; else the window manager's own
        resize follows, as it always did)."""
        self.winId()  # the platform window, which knows its frame margins
        handle = self.windowHandle()
        if handle is not None:
            available = self.screen().availableGeometry()
            self.setGeometry(available.marginsRemoved(handle.frameMargins()))

    def _unelided_tabs(self) -> None:
        """Dock tabs keep their whole titles and scroll when they do not fit ("G…" and
        "H…" side by side tell a lecturer nothing)."""
        for bar in self.findChildren(QTabBar):
            if bar.parent() is self:
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)
                bar.setExpanding(False)

    def _size_default(self) -> None:
        """The heatmap gets most of the room: about 62 % of the width, 62 % of the height
        (in the compact layout it has the whole height, and the steps beside it the width
        their keys ask for: :meth:`_compact_split`)."""
        self._apply_split(self._compact_split() if self._placed else DEFAULT_SPLIT)

    # --- the compact layout's columns ----------------------------------------------------
    def _front(self, area: str) -> QDockWidget | None:
        """The dock in front of the first layout's group ``area`` (None: none shown)."""
        for dock in self._docks_in(area):
            pid = dock.objectName().removeprefix("dock-")
            if self._dock_shown.get(pid) and not dock.isFloating():
                return dock
        return None

    def _need(self, dock: QDockWidget | None) -> int:
        """The width ``dock``'s panel asks for (0 when it is not built yet)."""
        if dock is None:
            return 0
        pid = dock.objectName().removeprefix("dock-")
        if not dict.__contains__(self.panels, pid):
            return 0
        frame = max(0, dock.width() - dock.widget().width())
        return self.panels[pid].needed_width() + frame

    def _compact_split(self) -> tuple[float, float]:
        """The compact layout's shares: the left column as wide as its front panel asks
        (between :data:`COMPACT_LEFT`'s bounds), narrower when the right's front panel
        asks for more (down to :data:`COMPACT_LEFT_FLOOR`)."""
        w = max(1, self.width())
        need_left = self._need(self._front("left"))
        need_right = self._need(self._front("right"))
        fx = need_left / w if need_left else COMPACT_SPLIT[0]
        fx = min(max(fx, COMPACT_LEFT[0]), COMPACT_LEFT[1])
        if need_right > w * (1 - fx):
            fx = max(1 - need_right / w, COMPACT_LEFT_FLOOR)
        return (fx, COMPACT_SPLIT[1])

    def fit_fronts(self) -> None:
        """In the compact layout, give the panels in front the width they ask for when one
        of them has less (a tab brought forward, a longer sentence in the steps)."""
        if not self._placed or self.focused_panel or not self.isVisible():
            return
        short = False
        for area in ("left", "right"):
            dock = self._front(area)
            if dock is not None and self._need(dock) > dock.width() + 2:
                short = True
        wide = self._front("left")
        if wide is not None and not short:
            # Narrower than the share it had: the room goes back to the heatmap.
            short = dock_share(wide, self) > self._compact_split()[0] + 0.02
        if short:
            self._apply_split(self._compact_split())

    def _apply_split(self, shares: tuple[float, float]) -> None:
        """The left column ``shares[0]`` of the width, the top right group ``shares[1]`` of
        the height (the docks below take the rest)."""
        left, right, bottom = (self._docks_in(a) for a in ("left", "right", "bottom"))
        w, h = self.width(), self.height()
        fx, fy = shares
        if left and right:
            self.resizeDocks(
                [left[0], right[0]], [int(w * fx), int(w * (1 - fx))], Qt.Orientation.Horizontal
            )
        if right and bottom:
            self.resizeDocks(
                [right[0], bottom[0]], [int(h * fy), int(h * (1 - fy))], Qt.Orientation.Vertical
            )
        self._split = None
        # The shares asked for stay the ones to come back to, even where the docks' minimum
        # sizes did not let them take here (a short window squeezes the views).
        self._intended = shares
        self._split_timer.start()

    def _remember_split(self) -> None:
        """Note the docks' shares of the window as they are now (settled): the ones last
        asked for if nothing moved since, else what the user made of them."""
        self._pending_default = False
        intended, self._intended = self._intended, None
        if intended is not None:
            self._split = (self.size(), intended)
            return
        left, right, bottom = (self._docks_in(a)[:1] for a in ("left", "right", "bottom"))
        shown = [d for d in (*left, *right) if d.isVisible() and not d.isFloating()]
        if len(shown) < 2:
            return
        # Shares of the docks' own room (resizeDocks shares it out in these proportions).
        fx = left[0].width() / max(1, left[0].width() + right[0].width())
        below = bottom[0].height() if bottom and bottom[0].isVisible() else 0
        fy = right[0].height() / max(1, right[0].height() + below)
        self._split = (self.size(), (fx, fy))

    def mouseReleaseEvent(self, event) -> None:
        # The window itself gets the mouse only on the separators between docks: a drag
        # there ended, and the shares the user made are the ones to keep.
        super().mouseReleaseEvent(event)
        self._intended = None
        self._split_timer.start()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        old, new = event.oldSize(), event.size()
        split = self._split
        large = (
            old.isValid()
            and old.width() > 0
            and old.height() > 0
            and (
                max(new.width() / old.width(), old.width() / max(1, new.width())) > LARGE_RESIZE
                or max(new.height() / old.height(), old.height() / max(1, new.height()))
                > LARGE_RESIZE
            )
        )
        if self._pending_default:
            QTimer.singleShot(0, self, self._size_default)
        elif large and split is not None and split[0] == old and not self.focused_panel:
            # Qt keeps the docks' pixel sizes and gives the change to one of them: at
            # 1280 → 1000 → 1280 the heatmap would keep ≈180 px. Split again in proportion.
            QTimer.singleShot(0, self, lambda shares=split[1]: self._apply_split(shares))
        else:
            self._split_timer.start()

    def reset_layout(self) -> None:
        """Put every panel back in its first-start place (View → Reset Layout)."""
        self.set_full_screen(False)
        self._focus_saved = None
        self._show_focus_checked(False)
        self._arrange_default()

    # --- one panel alone ---------------------------------------------------------------
    @property
    def focused_panel(self) -> bool:
        """True while one panel is shown alone (:meth:`set_focus_mode`)."""
        return self._focus_saved is not None

    def focus_target(self) -> QDockWidget | None:
        """The dock Focus on Panel would show alone: the one holding the keyboard focus,
        else the panel in front on the right (the heatmap at first start), else any shown."""
        widget = QApplication.focusWidget()
        while widget is not None and not isinstance(widget, QDockWidget):
            widget = widget.parentWidget()
        shown = [dock for pid, dock in self.docks.items() if self._dock_shown[pid]]
        if widget in shown:
            return widget
        for area in ("right", "bottom", "left"):
            for dock in self._docks_in(area):
                if dock in shown:
                    return dock
        return None

    def set_focus_mode(self, on: bool) -> None:
        """Show one panel alone in the window, or every panel back where it was (View →
        Focus on Panel, Ctrl+Shift+F): at 1280×720 a long sequence's map, the tiles or the
        dial get the whole window instead of the third a tab group leaves them."""
        if on == self.focused_panel:
            return
        if on:
            target = self.focus_target()
            if target is not None:
                self._focus_saved = self.saveState(LAYOUT_VERSION)
                for dock in self.docks.values():
                    if dock is not target and not dock.isFloating():
                        dock.hide()
                target.show()
                target.raise_()
        else:
            saved, self._focus_saved = self._focus_saved, None
            self.restoreState(saved, LAYOUT_VERSION)
        self._show_focus_checked(self.focused_panel)

    def _show_focus_checked(self, on: bool) -> None:
        action = getattr(self, "focus_action", None)
        if action is not None:
            with blocked(action):
                action.setChecked(on)

    def _restore_layout(self) -> bool:
        """The saved geometry and dock layout, where the settings hold usable ones; True
        when the docks were restored.

        Whatever the settings file holds (another type, truncated or foreign bytes, a
        window larger than the screen), the window opens: a value that does not restore
        is left for the first layout, which the next save overwrites.
        """
        geometry = saved_bytes(self.settings, "window/geometry")
        before = self.geometry()
        # Qt reads a truncated geometry as zeros and says it restored it (a 76 × 76 window):
        # shorter than the one it writes itself, it is refused here.
        whole = geometry is not None and geometry.size() >= self.saveGeometry().size()
        self.geometry_restored = whole and self.restoreGeometry(geometry)
        if self.geometry_restored and not self._fits_screen():
            self.setGeometry(before)  # larger than the screen, or off it: as at first start
            self.geometry_restored = False
        layout = saved_bytes(self.settings, "window/state")
        return layout is not None and self.restoreState(layout, LAYOUT_VERSION)

    def _fits_screen(self) -> bool:
        """True when the window lies on its screen's free area, no larger than it and not
        smaller than :data:`MIN_RESTORED`."""
        available = self.screen().availableGeometry()
        frame = self.frameGeometry()
        return (
            MIN_RESTORED.width() <= self.width()
            and MIN_RESTORED.height() <= self.height()
            and frame.width() <= available.width() + MAX_FRAME_SLACK
            and frame.height() <= available.height() + MAX_FRAME_SLACK
            and available.intersects(frame)
        )

    def save_layout(self) -> None:
        """Write the window geometry and dock layout to the settings."""
        self.settings.setValue("window/geometry", self.saveGeometry())
        # With one panel shown alone, the layout it came from (what Focus gives back).
        state = self._focus_saved if self.focused_panel else self.saveState(LAYOUT_VERSION)
        self.settings.setValue("window/state", state)
        self.settings.sync()

    def set_full_screen(self, on: bool) -> None:
        """Enter or leave full screen (View → Full Screen, F11)."""
        if on == self.isFullScreen():
            return
        if on:
            self.showFullScreen()
        else:
            self.showNormal()
        with blocked(self.full_screen_action):
            self.full_screen_action.setChecked(on)
