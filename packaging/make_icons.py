"""Render resources/icons/attnviz.svg to the PNG sizes and the Windows .ico.

Run it after editing the SVG (the outputs are committed, so a build needs no rendering):
``.venv/bin/python packaging/make_icons.py``. Qt renders offscreen through QtSvg, which
PySide6-Essentials ships; the .ico is written by hand (PNG-compressed entries, readable
by Windows Vista and later) because Qt's ICO writer stores only one size.
"""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
PNG_SIZES = (16, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 32, 48, 64, 128, 256)  # 256 is the largest size an .ico entry can say


def render_pngs(svg: Path, sizes=PNG_SIZES) -> dict[int, bytes]:
    """Render ``svg`` at each size (transparent corners) and return the PNG bytes by size."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 (kept alive)
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg}: not a valid SVG")
    out = {}
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")
        out[size] = bytes(data)
    return out


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An .ico file holding each PNG as one entry (ICONDIR, ICONDIRENTRYs, then the data)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        data = pngs[size]
        dim = 0 if size >= 256 else size  # 0 means 256 in an ICONDIRENTRY
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    return header + entries + blobs


def main() -> int:
    """Write attnviz-<size>.png for every size and attnviz.ico next to the SVG."""
    pngs = render_pngs(ICONS / "attnviz.svg")
    for size, data in pngs.items():
        (ICONS / f"attnviz-{size}.png").write_bytes(data)
    (ICONS / "attnviz.ico").write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    print(f"wrote {len(pngs)} PNGs and attnviz.ico to {ICONS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
