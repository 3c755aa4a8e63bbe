"""The prediction panel's arrangements (:class:`PicturePagesMixin`, mixed into
:class:`~attnviz.ui.panels.prediction.PredictionPanel`). Strings are translated in the
``PredictionPanel`` context.

On a slide, an export or the panel focused, the bars, the ablation map and the heads'
effects stand one under the other below every field. Docked in a tab at 1280 × 720 with
Large Fonts that column scrolled (the map's button and notes out of sight), so there the
three pictures are pages, and the interventions' fields a section that starts closed.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QDockWidget, QTabWidget, QToolButton, QVBoxLayout, QWidget

PAGES = ("bars", "map", "heads")


class PicturePagesMixin:
    """The pictures as pages in a dock, one column elsewhere."""

    # --- building ----------------------------------------------------------------------
    def _build_interventions_toggle(self) -> None:
        self.interventions_toggle = QToolButton()
        self.interventions_toggle.setObjectName("interventions_toggle")
        self.interventions_toggle.setCheckable(True)
        self.interventions_toggle.setChecked(True)
        self.interventions_toggle.setText(
            QCoreApplication.translate("PredictionPanel", "Interventions")
        )
        self.interventions_toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.interventions_toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.interventions_toggle.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel",
                "Show or hide the fields that switch heads off, cut links and pick the "
                "target. In a short dock they start hidden, so the pictures keep their room",
            )
        )
        self.interventions_toggle.toggled.connect(self._show_interventions)
        self.interventions_toggle.clicked.connect(self._on_q_interventions_clicked)
        self._interventions_chosen = False  # True once the user opens or closes them

    def _build_interventions(self) -> QWidget:
        """The fields that switch heads off and cut links, as one section."""
        self.interventions = QWidget()
        self.interventions.setObjectName("interventions")
        section = QVBoxLayout(self.interventions)
        section.setContentsMargins(0, 0, 0, 0)
        section.addLayout(self._build_ablation())
        section.addLayout(self._build_knockout())
        return self.interventions

    def _build_pages(self) -> None:
        """The pictures' container (:attr:`pictures`) and their pages."""
        # Two arrangements of the three pictures (:meth:`_arrange`): one column on a
        # slide, an export or the panel focused; docked in a tab at 1280 × 720 that column
        # scrolled (the map's button and notes out of sight), so there each is a page.
        self.pictures = QWidget()
        self.pictures.setObjectName("pictures")
        column = QVBoxLayout(self.pictures)
        column.setContentsMargins(0, 0, 0, 0)
        self.picture_pages = QTabWidget()
        self.picture_pages.setObjectName("picture_pages")
        self.picture_pages.setDocumentMode(True)
        self._pages = []
        for name, title in (
            ("page_bars", QCoreApplication.translate("PredictionPanel", "Bars")),
            ("page_map", QCoreApplication.translate("PredictionPanel", "Map")),
            ("page_heads", QCoreApplication.translate("PredictionPanel", "Heads")),
        ):
            page = QWidget()
            page.setObjectName(name)
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self.picture_pages.addTab(page, title)
            self._pages.append(page)
        self.picture_pages.currentChanged.connect(self._on_q_page)
        self.picture_pages.hide()
        column.addWidget(self.picture_pages)
        self._compact: bool | None = None
        self._arrange(False)

    # --- arrangement -------------------------------------------------------------------
    def compact(self) -> bool:
        """True while docked in a tab group and not focused: the pictures are pages then."""
        return isinstance(self.parentWidget(), QDockWidget) and not bool(
            getattr(self.window(), "focused_panel", False)
        )

    def _arrange(self, compact: bool) -> None:
        """The pictures as pages (``compact``) or one under the other."""
        if compact == self._compact:
            return
        first = self._compact is None
        self._compact = compact
        column = self.pictures.layout()
        if compact:
            bars, map_page, heads = (page.layout() for page in self._pages)
            bars.addWidget(self.figure, 1)
            bars.addWidget(self.hover)
            map_page.addWidget(self.map_box, 1)
            heads.addWidget(self.head_logits, 1)
        else:
            column.insertWidget(0, self.figure, 1)
            column.insertWidget(1, self.hover)
            column.insertWidget(2, self.map_box, 1)
            column.insertWidget(3, self.head_logits, 1)
        self.picture_pages.setVisible(compact)
        if not self._interventions_chosen:
            self.interventions_toggle.setChecked(not compact)
        if not first:  # built: the fields are shown by _finish
            self._on_view_changed()

    def _show_interventions(self, shown: bool) -> None:
        self.interventions.setVisible(shown)
        arrow = Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow
        self.interventions_toggle.setArrowType(arrow)

    def _on_q_interventions_clicked(self) -> None:
        self._interventions_chosen = True  # from now on the dock no longer decides

    def _on_q_page(self, _index: int) -> None:
        # A page brought forward follows the current inputs (a hidden one computed nothing).
        res = self.results_if_drawn()
        if res is not None:
            self._follow_pictures(res)
            self._draw_bars(res)
