"""A bare PySide6 + pyqtgraph window with one small image: the yardstick of ``startup``.

Run as a script (``python _bare_window.py``), never imported by attnviz: it imports no
attnviz module, only what any PySide6 + pyqtgraph application needs. It opens a main window
whose central widget is a pyqtgraph plot holding one ``ImageItem`` of a 64×64 float32
image, sized and shown as attnviz's window is, and once the window has been painted it prints
``first-paint <time.time()>`` and quits, exactly as ``attnviz.ui.app.run_app`` does under
``ATTNVIZ_QUIT_AFTER_FIRST_PAINT=1``. The ``startup`` figure times both the same way.
"""

import sys
import time


def main() -> int:
    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow, QWidget

    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    plot = pg.PlotWidget()
    image = np.random.default_rng(0).random((64, 64), dtype=np.float32)
    plot.addItem(pg.ImageItem(image, axisOrder="row-major", levels=(0.0, 1.0)))
    window.setCentralWidget(plot)

    class _FirstPaint(QObject):
        # The plot covers the whole window, so Qt sends the window itself no Paint event
        # (attnviz's dock separators leave it some): the first Paint of any widget of the
        # window marks the same first paint pass.
        def eventFilter(self, obj, event) -> bool:
            if (
                event.type() == QEvent.Type.Paint
                and isinstance(obj, QWidget)
                and obj.window() is window
            ):
                app.removeEventFilter(self)
                # The children paint in the same pass; report once it has finished.
                QTimer.singleShot(0, self._done)
            return False

        def _done(self) -> None:
            print(f"first-paint {time.time():.6f}", flush=True)
            app.quit()

    watcher = _FirstPaint(window)
    app.installEventFilter(watcher)
    # Sized as attnviz's window sizes itself (attnviz.ui.window_layout: maximized on a
    # screen up to 1366 pixels wide, else 90 % of it), so both paint as many pixels.
    available = app.primaryScreen().availableGeometry()
    if available.width() <= 1366:
        window.showMaximized()
    else:
        window.resize(int(available.width() * 0.9), int(available.height() * 0.9))
        window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
