"""File → Export Animation…: a panel as GIF, WebP, APNG or MP4 while one field sweeps.

The dialog gathers what ``attnviz export --animate`` takes (the panel, one numeric field
of the panel's topics, START, STOP, logarithmic steps, frames, frames per second, format,
size, theme, background, the file) and checks it with the same functions
(:func:`attnviz.model.sweep.parse_sweep`, :func:`~attnviz.model.sweep.check_frames`,
:func:`attnviz.ui.animation.check_target`). An :class:`~attnviz.ui.animation_job.
AnimationJob` then draws the frames in slices on the GUI thread, on a copy of the
document, and encodes them on the thread pool, behind a progress dialog with Cancel.

The ``overview`` panel's maps of a long sequence take seconds to minutes: when their
estimate (:func:`attnviz.model.sweep_work.overview_work`, as ``attnviz export --animate``
says it) passes :data:`~attnviz.model.sweep_work.SAY_WORK_S`, the dialog asks before
starting; the job then computes them on the thread pool, the progress dialog following.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressDialog,
    QPushButton,
    QSpinBox,
)

from attnviz.core.memory_guard import GiB, available_bytes
from attnviz.core.work import Cancelled
from attnviz.model.fields import StateError
from attnviz.model.frame_timing import check_fps_for, fps_range
from attnviz.model.panels import panel_ids, panel_spec
from attnviz.model.sweep import (
    FRAMES_RANGE,
    MAX_FPS,
    check_frames,
    numeric_fields,
    parse_sweep,
    sweep_values,
)
from attnviz.model.sweep_work import SAY_WORK_S, OverviewWork, overview_work
from attnviz.ui.animation import ALPHA_FORMATS, check_target, kept_bytes, video_available
from attnviz.ui.animation_job import AnimationJob
from attnviz.ui.export import ExportError, ExportSpec
from attnviz.ui.export_form import PictureForm
from attnviz.ui.panels import panel_title
from attnviz.ui.undo import change_label

# Topics whose fields a panel's picture also follows (the heatmap rotates by positions).
_ALSO_READS = {"attention": ("positions",)}
_DEFAULT_FRAMES = 24
_DEFAULT_FPS = 10.0


def _default_stop(field, current: float) -> float:
    """A stop that shows a change: four times the value (or ten more), within the range."""
    target = current * 4 if current > 0 else current + 10
    if field.hi is not None:
        target = min(target, field.hi)
    if target == current and field.lo is not None:
        target = field.lo
    return target


class AnimationDialog(QDialog):
    """Choose the panel, the field and its range, frames, format and file; then export.

    ``sigFinished(result)`` after a run: the written Path, or the exception that ended it.
    """

    sigFinished = Signal(object)

    def __init__(
        self, document, panel_id: str = "heatmap", theme: str = "light", parent=None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("animation_dialog")
        self.setWindowTitle(self.tr("Export Animation"))
        self.document = document
        self.job: AnimationJob | None = None
        self.progress: QProgressDialog | None = None
        self._close_when_done = False
        form = QFormLayout(self)
        self._build_sweep_rows(form)
        self._build_output_rows(form, theme)
        self.note = QLabel()
        self.note.setObjectName("note")
        self.note.setWordWrap(True)
        form.addRow(self.note)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.export_button = buttons.addButton(
            self.tr("E&xport"), QDialogButtonBox.ButtonRole.ActionRole
        )
        self.export_button.setObjectName("export_button")
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self._on_q_export)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        index = self.panel.findData(panel_id)
        self.panel.setCurrentIndex(index if index >= 0 else self.panel.findData("heatmap"))
        self._on_q_panel_changed()
        self._on_q_format_changed()

    # --- building ----------------------------------------------------------------------
    def _build_sweep_rows(self, form: QFormLayout) -> None:
        self.panel = QComboBox()
        self.panel.setObjectName("panel")
        self.panel.setToolTip(self.tr("The panel drawn in every frame"))
        for pid in panel_ids():
            if pid != "lessons":
                self.panel.addItem(panel_title(pid).replace("&", ""), pid)
        self.panel.currentIndexChanged.connect(self._on_q_panel_changed)
        form.addRow(self.tr("&Panel"), self.panel)
        self.field = QComboBox()
        self.field.setObjectName("field")
        self.field.setToolTip(self.tr("The number that moves from the first frame to the last"))
        self.field.currentIndexChanged.connect(self._on_q_field_changed)
        form.addRow(self.tr("&Field"), self.field)
        self.start, self.stop = QDoubleSpinBox(), QDoubleSpinBox()
        for spin, name, tip in (
            (self.start, "start", self.tr("The field's value in the first frame")),
            (self.stop, "stop", self.tr("The field's value in the last frame")),
        ):
            spin.setObjectName(name)
            spin.setToolTip(tip)
            spin.setKeyboardTracking(False)
            spin.valueChanged.connect(self._on_q_range_changed)
        form.addRow(self.tr("&Start"), self.start)
        form.addRow(self.tr("S&top"), self.stop)
        self.log = QCheckBox(self.tr("&Logarithmic steps"))
        self.log.setObjectName("log")
        self.log.setToolTip(
            self.tr(
                "Each frame multiplies the value by the same factor (both "
                "ends above 0); an integer field is then rounded"
            )
        )
        form.addRow("", self.log)
        self.frames = QSpinBox()
        self.frames.setObjectName("frames")
        self.frames.setRange(*FRAMES_RANGE)
        self.frames.setValue(_DEFAULT_FRAMES)
        self.frames.setToolTip(self.tr("How many pictures the animation has"))
        form.addRow(self.tr("F&rames"), self.frames)
        self.fps = QDoubleSpinBox()
        self.fps.setObjectName("fps")
        self.fps.setRange(0.1, MAX_FPS)
        self.fps.setDecimals(1)
        self.fps.setValue(_DEFAULT_FPS)
        self.fps.setSuffix(self.tr(" per second"))
        self.fps.setToolTip(
            self.tr("Frames shown per second (GIF times them in hundredths of a second)")
        )
        form.addRow(self.tr("Fram&e rate"), self.fps)

    def _build_output_rows(self, form: QFormLayout, theme: str) -> None:
        self.format = QComboBox()
        self.format.setObjectName("format")
        has_video = video_available()
        for ext, text in (
            ("gif", self.tr("GIF (plays everywhere, 256 colours a frame)")),
            ("webp", self.tr("WebP, lossless (small; keeps transparency)")),
            ("apng", self.tr("APNG, lossless (keeps transparency)")),
            (
                "mp4",
                self.tr("MP4 video, H.264")
                if has_video
                else self.tr("MP4 video (needs the video extra: pip install 'attnviz[video]')"),
            ),
        ):
            self.format.addItem(text, ext)
        if not has_video:
            self.format.model().item(self.format.count() - 1).setEnabled(False)
        self.format.currentIndexChanged.connect(self._on_q_format_changed)
        form.addRow(self.tr("F&ormat"), self.format)
        self.picture = PictureForm(
            form,
            theme,
            (self.tr("Si&ze"), self.tr("T&heme"), self.tr("Tr&ansparent background")),
            self,
        )
        self.picture.name_widgets_on(self)
        self.transparent.setToolTip(self.tr("WebP and APNG only"))
        self.output = QLineEdit()
        self.output.setObjectName("output")
        self.output.setPlaceholderText(self.tr("the file to write"))
        browse = QPushButton(self.tr("&Browse…"))
        browse.setObjectName("browse")
        browse.clicked.connect(self._on_q_browse)
        row = QHBoxLayout()
        row.addWidget(self.output, 1)
        row.addWidget(browse)
        label = QLabel(self.tr("F&ile"))
        label.setBuddy(self.output)
        form.addRow(label, row)

    # --- what the dialog describes -----------------------------------------------------
    def field_path(self) -> str | None:
        """``topic.field`` chosen, or None when the panel's topics have no numeric field."""
        return self.field.currentData()

    def sweep_text(self) -> str:
        """The sweep as ``attnviz export --animate`` takes it."""
        path = self.field_path() or ""
        kind = self._field().kind if path else "float"
        start, stop = self.start.value(), self.stop.value()
        text = (
            f"{path}={round(start)}:{round(stop)}"
            if kind == "int"
            else f"{path}={start!r}:{stop!r}"
        )
        return text + (":log" if self.log.isChecked() else "")

    def spec(self) -> ExportSpec:
        """Size, theme and background of every frame."""
        return self.picture.spec()

    def _field(self):
        topic, _, name = self.field_path().partition(".")
        return self.document[topic].field(name)

    # --- reactions ---------------------------------------------------------------------
    def _on_q_panel_changed(self, _index: int = 0) -> None:
        topic = panel_spec(self.panel.currentData()).topic
        previous = self.field_path()
        self.field.blockSignals(True)
        self.field.clear()
        for name in (topic, *_ALSO_READS.get(topic, ())):
            for field_name in numeric_fields(self.document, name):
                path = f"{name}.{field_name}"
                # The field's name as the Edit menu says it, then the name --animate takes.
                shown = change_label({(name, field_name)})
                self.field.addItem(f"{shown} ({path})" if shown != path else path, path)
                doc = self.document[name].field(field_name).doc
                self.field.setItemData(self.field.count() - 1, doc, Qt.ItemDataRole.ToolTipRole)
        index = self.field.findData(previous)
        if index < 0 and topic == "attention":
            index = self.field.findData("attention.d_k")
        self.field.setCurrentIndex(max(index, 0))
        self.field.blockSignals(False)
        self._on_q_field_changed()

    def _on_q_field_changed(self, _index: int = 0) -> None:
        if self.field_path() is None:
            return
        field = self._field()
        topic, _, name = self.field_path().partition(".")
        current = float(self.document[topic].get(name))
        lo = field.lo if field.lo is not None else -1e12
        hi = field.hi if field.hi is not None else 1e12
        for spin in (self.start, self.stop):
            spin.blockSignals(True)
            spin.setDecimals(0 if field.kind == "int" else 4)
            spin.setRange(lo, hi)
            spin.blockSignals(False)
        self.start.setValue(current)
        self.stop.setValue(_default_stop(field, current))
        self.field.setToolTip(field.doc)
        self._on_q_range_changed()

    def _on_q_range_changed(self, _value: float = 0.0) -> None:
        positive = self.start.value() > 0 and self.stop.value() > 0
        self.log.setEnabled(positive)
        if not positive:
            self.log.setChecked(False)

    def _on_q_format_changed(self, _index: int = 0) -> None:
        ext = self.format.currentData()
        # What the format can time: a GIF plays at most 50 frames a second.
        self.fps.setMaximum(fps_range(ext)[1])
        self.transparent.setEnabled(ext in ALPHA_FORMATS)
        if ext not in ALPHA_FORMATS:
            self.transparent.setChecked(False)
        text = self.output.text().strip()
        if text:
            self.output.setText(str(Path(text).with_suffix(f".{ext}")))

    def _on_q_browse(self) -> None:
        ext = self.format.currentData()
        settings = QSettings()
        folder = str(settings.value("export/folder", str(Path.home())))
        name = f"{self.panel.currentData()}-{(self.field_path() or 'sweep').split('.')[-1]}"
        path, _filter = QFileDialog.getSaveFileName(
            self, self.tr("Export Animation"), str(Path(folder) / f"{name}.{ext}"), f"*.{ext}"
        )
        if path:
            self.output.setText(path)
            settings.setValue("export/folder", str(Path(path).parent))

    # --- running -----------------------------------------------------------------------
    def _checked_request(self):
        """``(path, frame_values)``, or None after saying what is wrong."""
        ext = self.format.currentData()
        text = self.output.text().strip()
        if not text:
            self._on_q_browse()
            text = self.output.text().strip()
            if not text:
                return None
        path = Path(text)
        if path.suffix.lower() != f".{ext}":
            path = path.with_name(path.name + f".{ext}")
        spec = self.spec()
        try:
            if self.field_path() is None:
                raise StateError(self.tr("This panel has no numeric field to animate."))
            sweep = parse_sweep(self.sweep_text(), self.document)
            values = sweep_values([sweep], self.frames.value())
            check_frames(self.document, values)
            check_target(path, spec.width, spec.height, transparent=spec.transparent)
            check_fps_for(ext, self.fps.value())
        except (StateError, ExportError) as exc:
            QMessageBox.warning(self, self.tr("Cannot export"), str(exc))
            return None
        channels = 4 if spec.transparent else 3
        need = kept_bytes(ext, len(values), spec.width, spec.height, spec.transparent)
        need += len(values) * spec.width * spec.height * channels
        free = available_bytes("numpy")
        if free is not None and need > 0.8 * free:
            QMessageBox.warning(
                self,
                self.tr("Cannot export"),
                self.tr(
                    "These frames need %1 GiB of memory and %2 GiB are free: use fewer frames "
                    "or a smaller size."
                )
                .replace("%1", f"{need / GiB:.1f}")
                .replace("%2", f"{free / GiB:.1f}"),
            )
            return None
        return path, values

    def _on_q_export(self) -> None:
        request = self._checked_request()
        if request is not None and self._long_work_accepted(request[1]):
            self.run(*request)

    def _long_work_accepted(self, frame_values: list[dict]) -> bool:
        """True unless the overview's maps take past SAY_WORK_S and the user says No."""
        if self.panel.currentData() != "overview":
            return True
        work = overview_work(self.document, frame_values)
        if work.seconds <= SAY_WORK_S:
            return True
        answer = QMessageBox.question(
            self,
            self.tr("Export Animation"),
            self.long_work_text(work),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.Yes,
        )
        return answer == QMessageBox.StandardButton.Yes

    def long_work_text(self, work: OverviewWork) -> str:
        """The question asked before ``work``: how many maps, and about how long."""
        duration = self.about(work.seconds)
        if len(work.maps) == 1:
            return self.tr(
                "The attention map of this animation takes %1 on this machine's CPU; export anyway?"
            ).replace("%1", duration)
        return (
            self.tr(
                "The %1 attention maps of this animation take %2 on this machine's CPU; "
                "export anyway?"
            )
            .replace("%1", str(len(work.maps)))
            .replace("%2", duration)
        )

    def about(self, seconds: float) -> str:
        """``about 12 s`` or ``about 3 min`` in the UI's language, rounded as the commands
        round it (``attnviz.commands._args.about``)."""
        if seconds < 120:
            return self.tr("about %1 s").replace("%1", f"{seconds:.0f}")
        return self.tr("about %1 min").replace("%1", f"{seconds / 60:.0f}")

    def run(self, path, frame_values: list[dict]) -> AnimationJob:
        """Start writing ``path`` with ``frame_values`` (checked) and the dialog's choices."""
        self.job = AnimationJob(
            self.document,
            self.panel.currentData(),
            frame_values,
            self.spec(),
            path,
            self.fps.value(),
            self,
        )
        self.progress = QProgressDialog(
            self.tr("Drawing the frames…"), self.tr("Cancel"), 0, len(frame_values), self
        )
        self.progress.setObjectName("animation_progress")
        self.progress.setWindowTitle(self.tr("Export Animation"))
        self.progress.setWindowModality(Qt.WindowModality.WindowModal)
        self.progress.setMinimumDuration(0)
        self.progress.setAutoClose(False)
        self.progress.setAutoReset(False)
        self.progress.canceled.connect(self.job.cancel)
        self.job.sigProgress.connect(self._on_job_progress)
        self.job.sigFinished.connect(self._on_job_finished)
        self.export_button.setEnabled(False)
        self.note.setText("")
        self.job.start()
        return self.job

    def _on_job_progress(self, done: int, total: int, stage: str) -> None:
        if self.progress is None:
            return
        if self.progress.wasCanceled():  # closed or Escape, not only the Cancel button
            self.job.cancel()
        if stage == "map":
            text = self.tr("Computing map %1 of %2…")
            # In thousandths, with the share of the map on its way: one map may take minutes.
            maximum, value = 1000, round(1000 * (done - 1 + self.job.map_fraction) / total)
        else:
            text = (
                self.tr("Drawing frame %1 of %2…")
                if stage == "draw"
                else self.tr("Writing frame %1 of %2…")
            )
            maximum, value = total, done
        self.progress.setMaximum(maximum)
        self.progress.setLabelText(text.replace("%1", str(max(done, 1))).replace("%2", str(total)))
        self.progress.setValue(value)

    def _on_job_finished(self, result) -> None:
        if self.progress is not None:
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None
        self.export_button.setEnabled(True)
        if isinstance(result, Path):
            self.note.setText(self.tr("Wrote %1.").replace("%1", str(result)))
        elif isinstance(result, Cancelled):
            self.note.setText(self.tr("Cancelled: nothing was written."))
        else:
            self.note.setText("")
            if not self._close_when_done:
                QMessageBox.warning(self, self.tr("Export failed"), str(result))
        self.sigFinished.emit(result)
        if self._close_when_done:
            super().reject()

    def reject(self) -> None:
        """Close; a run in progress is cancelled first (the dialog closes when it ends)."""
        if self.job is not None and self.job.running:
            self._close_when_done = True
            self.job.cancel()
            return
        super().reject()
