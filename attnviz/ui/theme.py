"""Light and dark themes: the Qt palette, pyqtgraph colours and a large-font mode.

The theme follows the system colour scheme (``QStyleHints.colorScheme``) unless the user
picks one in View → Theme; the choice and the large-font flag live in ``QSettings``. Views
that draw with pyqtgraph listen to :attr:`ThemeManager.sigThemeChanged` and restyle
themselves from the :class:`Theme` they receive, because pyqtgraph's global config only
reaches items created after it is set.

Large fonts must reach every widget: the application font does not reach a dock's title
(Qt keeps the font the dock was created with) nor the fixed-size check boxes, radio
buttons and slider handles of the style, so the manager sets the docks' fonts itself and,
in large-font mode, draws with :class:`ProjectorStyle` (Fusion with those grown).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject, QSettings, Qt, Signal
from PySide6.QtGui import QColor, QFont, QGuiApplication, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QDockWidget, QProxyStyle, QStyle, QStyleFactory, QWidget

MODES = ("system", "light", "dark")
#: Font growth in large-font (projector) mode.
LARGE_FONT_FACTOR = 1.5


@dataclass(frozen=True)
class Theme:
    """Colours (as ``#rrggbb`` strings) and font scale that every view draws with."""

    name: str
    background: str
    foreground: str
    muted: str
    masked_fill: str
    masked_hatch: str
    highlight: str
    entropy: str
    font_scale: float = 1.0

    @property
    def dark(self) -> bool:
        """True for the dark theme."""
        return self.name == "dark"


LIGHT = Theme(
    name="light",
    background="#ffffff",
    foreground="#1a1a1a",
    muted="#6b6b6b",
    masked_fill="#d0d0d0",
    masked_hatch="#7a7a7a",
    highlight="#d62728",
    entropy="#4c72b0",
)
DARK = Theme(
    name="dark",
    background="#1e1f22",
    foreground="#e8e8e8",
    muted="#a0a0a0",
    masked_fill="#55575c",
    masked_hatch="#a0a0a0",
    highlight="#ff5c5c",
    entropy="#7fa7e8",
)


#: Presentation mode (F5): pure black on white (or white on black), darker greys and stronger
#: accents, because a projector washes out every mid-tone colour.
CONTRAST_LIGHT = Theme(
    name="light",
    background="#ffffff",
    foreground="#000000",
    muted="#262626",
    masked_fill="#b8b8b8",
    masked_hatch="#303030",
    highlight="#e00000",
    entropy="#1846b0",
)
CONTRAST_DARK = Theme(
    name="dark",
    background="#000000",
    foreground="#ffffff",
    muted="#e6e6e6",
    masked_fill="#4d4d4d",
    masked_hatch="#dcdcdc",
    highlight="#ff3b3b",
    entropy="#8cb8ff",
)


def presentation_theme(dark: bool) -> Theme:
    """The high-contrast theme of presentation mode, light or dark."""
    return CONTRAST_DARK if dark else CONTRAST_LIGHT


def presentation_palette(dark: bool) -> QPalette:
    """The Qt palette of :func:`presentation_theme`: no grey text, strong selection colours."""
    pal = palette_for(presentation_theme(dark))
    ink, paper = (
        (QColor("#ffffff"), QColor("#000000")) if dark else (QColor("#000000"), QColor("#ffffff"))
    )
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        pal.setColor(QPalette.ColorGroup.Active, role, ink)
        pal.setColor(QPalette.ColorGroup.Inactive, role, ink)
    for role in (QPalette.ColorRole.Window, QPalette.ColorRole.Base):
        pal.setColor(role, paper)
    pal.setColor(QPalette.ColorRole.Highlight, QColor("#1f5fe0" if not dark else "#3d7bff"))
    pal.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    return pal


def theme_named(name: str, *, large_fonts: bool = False) -> Theme:
    """The built-in theme ``"light"`` or ``"dark"``, optionally with large fonts."""
    if name not in ("light", "dark"):
        raise ValueError(f"unknown theme {name!r}; expected light or dark")
    base = DARK if name == "dark" else LIGHT
    return replace(base, font_scale=LARGE_FONT_FACTOR) if large_fonts else base


_PM = QStyle.PixelMetric
#: Style measures that are fixed pixel sizes in Fusion and grow with large fonts.
_GROWN = frozenset(
    {
        _PM.PM_IndicatorWidth,
        _PM.PM_IndicatorHeight,
        _PM.PM_ExclusiveIndicatorWidth,
        _PM.PM_ExclusiveIndicatorHeight,
        _PM.PM_SliderLength,
        _PM.PM_SliderThickness,
        _PM.PM_SliderControlThickness,
    }
)


#: The icons of a dock's title bar buttons, which Qt asks the style for on every layout of
#: every dock (to measure the buttons), not only when it paints them.
_TITLE_BAR_ICONS = frozenset(
    {QStyle.StandardPixmap.SP_TitleBarCloseButton, QStyle.StandardPixmap.SP_TitleBarNormalButton}
)


class AppStyle(QProxyStyle):
    """Fusion, drawing exactly as Fusion does, with the dock title bar icons made once.

    Fusion builds those icons anew on each request, reading their image files at every
    size: fourteen docks laid out at start-up asked for them about 250 times (some 15 ms
    before the first paint). The icons are the same files whatever the palette, option or
    widget, so one of each serves every request.
    """

    def __init__(self) -> None:
        # (Fusion is built into every Qt; were it missing, the platform's style is proxied.)
        super().__init__(QStyleFactory.create("Fusion"))
        self.setObjectName(self.baseStyle().objectName())  # "fusion", as before
        self._icons: dict = {}

    def standardIcon(self, standardIcon, option=None, widget=None) -> QIcon:
        """Fusion's icon; those of :data:`_TITLE_BAR_ICONS` from the cache."""
        if standardIcon not in _TITLE_BAR_ICONS:
            return super().standardIcon(standardIcon, option, widget)
        icon = self._icons.get(standardIcon)
        if icon is None:
            icon = self._icons[standardIcon] = super().standardIcon(standardIcon, option, widget)
        return icon


class ProjectorStyle(AppStyle):
    """Fusion with check boxes, radio buttons and slider handles ``factor`` times larger."""

    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = float(factor)

    def pixelMetric(self, metric, option=None, widget=None) -> int:
        value = super().pixelMetric(metric, option, widget)
        if metric in _GROWN:
            return round(value * self.factor)
        return value


def _dark_palette() -> QPalette:
    pal = QPalette()
    colors = {
        QPalette.ColorRole.Window: "#2b2d30",
        QPalette.ColorRole.WindowText: "#e8e8e8",
        # Lighter than Window: Fusion outlines check boxes in Window.darker(), so the box
        # itself must stand out from the panel to be seen on a projector.
        QPalette.ColorRole.Base: "#45484d",
        QPalette.ColorRole.AlternateBase: "#3c3f44",
        QPalette.ColorRole.ToolTipBase: "#3c3f41",
        QPalette.ColorRole.ToolTipText: "#f0f0f0",
        QPalette.ColorRole.PlaceholderText: "#8c8c8c",
        QPalette.ColorRole.Text: "#e8e8e8",
        QPalette.ColorRole.Button: "#3c3f41",
        QPalette.ColorRole.ButtonText: "#e8e8e8",
        QPalette.ColorRole.BrightText: "#ff6b6b",
        QPalette.ColorRole.Link: "#7fa7e8",
        QPalette.ColorRole.Highlight: "#3d6fb4",
        QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Light: "#4a4d50",
        QPalette.ColorRole.Midlight: "#3f4245",
        QPalette.ColorRole.Mid: "#323437",
        QPalette.ColorRole.Dark: "#1b1c1e",
        QPalette.ColorRole.Shadow: "#111111",
    }
    for role, color in colors.items():
        pal.setColor(role, QColor(color))
    # Disabled widgets must stay readable but look disabled on a projector too.
    for role in (
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
    ):
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7a7a7a"))
    return pal


def palette_for(theme: Theme) -> QPalette:
    """The Qt palette of ``theme`` (Fusion's own for light), e.g. for an offscreen export."""
    if theme.dark:
        return _dark_palette()
    style = QStyleFactory.create("Fusion")
    return style.standardPalette() if style is not None else QPalette()


def system_scheme() -> str:
    """``"dark"`` when the platform reports a dark colour scheme, else ``"light"``."""
    app = QGuiApplication.instance()
    if app is None:
        return "light"
    scheme = app.styleHints().colorScheme()
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"


class ThemeManager(QObject):
    """Applies the chosen theme to the application and tells views when it changes.

    Parameters
    ----------
    app : QApplication
        The application whose style, palette and font are set.
    settings : QSettings, optional
        Where the mode and large-font flag are read from and saved to.
    """

    sigThemeChanged = Signal(object)

    def __init__(self, app: QApplication, settings: QSettings | None = None, parent=None):
        super().__init__(parent)
        self._app = app
        self._settings = settings
        mode = str(settings.value("view/theme", "system")) if settings else "system"
        self._mode = mode if mode in MODES else "system"
        large = settings.value("view/large_fonts", False, type=bool) if settings else False
        self._large = bool(large)
        # The font before any large-font mode, kept on the application: a second window
        # must not take the first one's enlarged font for its base and enlarge it again.
        base = app.property("attnviz_base_font")
        if not isinstance(base, QFont):
            base = QFont(app.font())
            app.setProperty("attnviz_base_font", base)
        self._base_font = QFont(base)
        # Fusion draws the same on every platform and honours a dark palette everywhere.
        app.setStyle(AppStyle())
        self._light_palette = app.style().standardPalette()
        self._style_scale = 1.0
        app.styleHints().colorSchemeChanged.connect(self._on_q_color_scheme_changed)
        self.theme = self._resolve()
        self._apply()

    @property
    def mode(self) -> str:
        """``"system"``, ``"light"`` or ``"dark"``."""
        return self._mode

    @property
    def large_fonts(self) -> bool:
        """True in large-font (projector) mode."""
        return self._large

    def set_mode(self, mode: str) -> None:
        """Choose ``"system"``, ``"light"`` or ``"dark"`` and apply it."""
        if mode not in MODES:
            raise ValueError(f"unknown theme mode {mode!r}; expected one of {', '.join(MODES)}")
        self._mode = mode
        self._save("view/theme", mode)
        self._refresh()

    def set_large_fonts(self, on: bool) -> None:
        """Turn large-font mode on or off."""
        self._large = bool(on)
        self._save("view/large_fonts", self._large)
        self._refresh()

    def _save(self, key: str, value) -> None:
        if self._settings is not None:
            self._settings.setValue(key, value)

    def _resolve(self) -> Theme:
        name = system_scheme() if self._mode == "system" else self._mode
        return theme_named(name, large_fonts=self._large)

    def _refresh(self) -> None:
        self.theme = self._resolve()
        self._apply()
        self.sigThemeChanged.emit(self.theme)

    def _apply(self) -> None:
        t = self.theme
        self._apply_style(t.font_scale)
        self._app.setPalette(_dark_palette() if t.dark else self._light_palette)
        font = QFont(self._base_font)
        if t.font_scale != 1.0 and font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * t.font_scale)
        self._app.setFont(font)
        # A dock paints its title in the font it was created with unless its own font
        # differs from the application's: give it an equal-looking font that is not equal.
        title = QFont(font)
        title.setStyleStrategy(QFont.StyleStrategy.PreferAntialias)
        pg.setConfigOptions(background=t.background, foreground=t.foreground)
        # Under a widget with a style sheet, rich-text labels keep the palette they were
        # polished with; setting the sheet again re-polishes them with the new one.
        for widget in self._own_widgets():
            if not shiboken6.isValid(widget):
                continue  # a window of an earlier session being torn down
            try:
                if isinstance(widget, QDockWidget):
                    widget.setFont(title)
                sheet = widget.styleSheet()
                if sheet:
                    widget.setStyleSheet(sheet)
            except RuntimeError:  # deleted between the check and the call
                continue

    def _own_widgets(self) -> list:
        """The widgets of the window this manager themes (all windows when it has none).

        Not ``allWidgets()``: that also lists the widgets of another window being torn
        down at that moment, and touching one of those can crash.
        """
        root = self.parent()
        if isinstance(root, QWidget) and shiboken6.isValid(root):
            return [root, *root.findChildren(QWidget)]
        return list(self._app.allWidgets())

    def _apply_style(self, scale: float) -> None:
        """Fusion, or :class:`ProjectorStyle` for large fonts (set again only on a change)."""
        if scale == self._style_scale:
            return
        self._style_scale = scale
        self._app.setStyle(ProjectorStyle(scale) if scale != 1.0 else AppStyle())

    def _on_q_color_scheme_changed(self, _scheme) -> None:
        if self._mode == "system":
            self._refresh()
