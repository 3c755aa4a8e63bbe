"""The memory panel: its gauge, bars and chart show kv_report's numbers; configs; the fit point."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QImage, QMouseEvent

from attnviz.core.hf_config import load_hf_config
from attnviz.core.kvcache import kv_report, model_card
from attnviz.model.workspace import Workspace
from attnviz.ui.export import ExportSpec
from attnviz.ui.panel_export import render_panel_image
from attnviz.ui.panels.memory import MemoryPanel
from attnviz.ui.theme import theme_named

GIB = 2**30


@pytest.fixture
def panel(qtbot):
    p = MemoryPanel(Workspace())
    qtbot.addWidget(p)
    p.apply_theme(theme_named("light"))
    p.resize(1000, 800)
    p.show()
    qtbot.waitExposed(p)
    return p


def _pick(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))
    combo.activated.emit(combo.currentIndex())


def _shown_bars(panel) -> dict:
    return {b.name: b.value for b in panel.figure.bars.bars}


def _variants(report) -> dict:
    return {v["design"]: float(v["kv_cache_bytes"]) for v in report["variants"]}


def test_llama3_8b_shows_16_gib_and_mha_four_times(panel):
    gauge = panel.figure.gauge.state
    assert gauge.kv_bytes == 16 * GIB and gauge.context == 131_072
    assert "16 GiB" in gauge.title and "of 80 GB" in gauge.title
    report = kv_report(model_card("llama-3-8b"), 131_072)
    assert _shown_bars(panel) == _variants(report)
    assert _shown_bars(panel)["MHA"] == 4 * 16 * GIB
    current = [b.name for b in panel.figure.bars.bars if b.kind == "current"]
    assert current == ["GQA"]
    assert panel.figure.score_text.textItem.toPlainText() == "34.36 GB"
    assert "128 KiB per token (131,072 bytes)" in panel.figure.summary.text()


@pytest.mark.parametrize(("model", "context"), [("qwen3.8-27b", 262_144), ("deepseek-v3", 8192)])
def test_other_cards_show_kv_report(panel, model, context):
    _pick(panel.model, model)
    panel.context.box.setText(str(context))
    panel.context.box.editingFinished.emit()
    assert panel.state.context == context
    report = kv_report(model_card(model), context)
    assert panel.figure.gauge.state.kv_bytes == report["kv_cache_bytes"]
    shown = _shown_bars(panel)
    for design, value in _variants(report).items():
        assert shown[design] == value
    if model == "qwen3.8-27b":
        (without,) = [b for b in panel.figure.bars.bars if b.kind == "without"]
        assert without.value == 4 * report["kv_cache_bytes"] and "4×" in without.detail
        assert "64 layers, 16 with attention" in panel.figure.summary.text()
    else:
        assert "MLA latent 512 + 64" in panel.figure.summary.text()


def test_typed_context_reads_128k_and_refuses_nonsense(panel):
    panel.context.box.setText("64k")
    panel.context.box.editingFinished.emit()
    assert panel.state.context == 65_536 and panel.figure.gauge.state.kv_bytes == 8 * GIB
    panel.context.box.setText("12 parsecs")
    panel.context.box.editingFinished.emit()
    assert panel.state.context == 65_536
    assert panel.message.isVisible() and "token count" in panel.message.text()
    assert panel.context.box.text() == "65,536 (64k)"


def test_the_fit_point_moves_with_the_gpu_size(panel):
    fits = []
    for text in ("24", "80 GB", "141", "192"):
        panel.gpu.setEditText(text)
        panel.gpu.lineEdit().editingFinished.emit()
        fits.append(panel.figure.gauge.state.max_context)
    assert panel.state.gpu_gb == 192.0
    assert fits == sorted(fits) and len(set(fits)) == 4
    assert fits[1] == 487_819
    panel.gpu.setEditText("a lot")
    panel.gpu.lineEdit().editingFinished.emit()
    assert panel.state.gpu_gb == 192.0 and panel.message.isVisible()


def test_a_config_not_shipped_reads_into_a_custom_card(panel, tmp_path):
    folder = tmp_path / "Qwen3-Next-80B-A3B"
    folder.mkdir()
    config = {
        "model_type": "qwen3_next",
        "num_hidden_layers": 48,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "hidden_size": 2048,
        "full_attention_interval": 4,
    }
    (folder / "config.json").write_text(json.dumps(config))
    assert panel.load_config(folder / "config.json")
    card = load_hf_config(folder / "config.json")
    assert panel.state.model == "custom" and panel.state.name == "Qwen3-Next-80B-A3B"
    assert panel.model.currentText() == "Custom: Qwen3-Next-80B-A3B"
    report = kv_report(card, 131_072)
    per_token = 12 * 2 * 2 * 256 * 2  # 12 of 48 layers with attention, 2 KV heads of 256
    assert panel.figure.gauge.state.kv_bytes == report["kv_cache_bytes"] == per_token * 131_072
    assert "12 with attention" in panel.figure.summary.text()
    assert not panel.message.isVisible()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"num_hidden_layers": 32}', "num_attention_heads"),
        ('{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 5}',
         "must divide"),
        ("{not json", "not valid JSON"),
    ],
)  # fmt: skip
def test_a_broken_config_is_refused_with_a_message(panel, tmp_path, text, message):
    path = tmp_path / "config.json"
    path.write_text(text)
    before = panel.state.snapshot()
    assert not panel.load_config(path)
    assert panel.state.snapshot() == before
    assert panel.message.isVisible() and message in panel.message.text()
    assert str(path) in panel.message.text()


def test_the_card_editor_offers_divisors_and_makes_a_custom_card(panel):
    panel.card_button.setChecked(True)
    assert panel.card_editor.isVisible()
    kv = panel.card_editor.kv_heads
    assert [kv.itemData(i) for i in range(kv.count())] == [1, 2, 4, 8, 16, 32]
    _pick(kv, 1)
    assert panel.state.model == "custom" and panel.state.kv_heads == 1
    assert panel.figure.gauge.state.kv_bytes == 2 * GIB
    panel.card_editor.spins["kv_lora_rank"].setValue(512)
    panel.card_editor.spins["rope_head_dim"].setValue(64)
    assert panel.figure.gauge.state.kv_bytes == 32 * 576 * 2 * 131_072
    panel.card_editor.params.setText("lots")
    panel.card_editor.params.editingFinished.emit()
    assert panel.message.isVisible() and panel.state.params == 8_030_261_248


def test_hovering_a_bar_and_restyling(panel, qtbot):
    bars = panel.figure.bars
    assert bars.row_at(bars._top() + 1) == 0 and bars.row_at(bars.height() - 1) is None
    for y in (5, bars.height() // 3, bars.height() - 2):
        event = QMouseEvent(QEvent.Type.MouseMove, QPointF(50, y), QPointF(50, y),
                            Qt.MouseButton.NoButton, Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier)  # fmt: skip
        bars.mouseMoveEvent(event)
    panel.apply_theme(theme_named("dark", large_fonts=True))
    panel.grab()
    assert not panel.message.isVisible()


def test_the_panel_exports_at_the_exact_size():
    image = render_panel_image(Workspace(), "memory", ExportSpec(1280, 720))
    assert (image.width(), image.height()) == (1280, 720)
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    colours = {image.pixel(x, y) for x in range(0, 1280, 9) for y in range(0, 720, 9)}
    assert len(colours) > 20


def test_kv_heads_of_the_heads_panel_change_the_bytes_shown(qtbot, make_window):
    window = make_window(preset="heads", front="memory")
    panel = window.panels["memory"]
    qtbot.waitUntil(lambda: panel.heads_line.isVisibleTo(panel), timeout=3000)
    assert "8 query heads share 2 KV heads" in panel.heads_line.text()
    window.document.attention.update(n_kv_heads=1)
    qtbot.waitUntil(lambda: "share 1 KV head of width" in panel.heads_line.text(), timeout=3000)


def test_the_n_squared_chart_links_to_the_tiles(qtbot, make_window):
    window = make_window(front="memory")
    panel = window.panels["memory"]
    assert not panel.from_model.isEnabled()  # no model is open
    shown = []
    window.docks["tiles"].visibilityChanged.connect(shown.append)
    panel.tiles_link.click()
    qtbot.waitUntil(lambda: True in shown, timeout=3000)


def test_a_card_of_one_says_each_count_in_the_singular_and_bytes_once(panel, qtbot):
    """ "1 KV heads", "1 layers", "256 B per token (256 bytes)" in the figure's words."""
    panel.workspace.document.memory.update(
        model="custom", name="tiny", layers=1, heads=1, kv_heads=1, head_dim=64,
        attention_layers=1, context=1,
    )  # fmt: skip
    qtbot.waitUntil(lambda: "tiny" in panel.figure.summary.text(), timeout=3000)
    summary = panel.figure.summary.text()
    assert "1 layer;" in summary and "1 query head, 1 KV head (MHA)" in summary
    assert "256 bytes per token" in summary and "(256 bytes)" not in summary
    assert "S at 1 token: 1 entry" in summary
    details = {b.name: b.detail for b in panel.figure.bars.bars}
    assert details["MHA"] == "1 KV head" and details["MQA"] == "1 KV head"
    tips = " ".join(b.tip for b in panel.figure.bars.bars)
    assert "256 bytes per token, 256 bytes at the context" in tips
    assert panel.figure.bars.title == "KV cache at 1 token by attention design"
    for wrong in ("1 layers", "1 KV heads", "1 query heads", "1 tokens", "1 entries"):
        assert wrong not in summary + tips, wrong
    panel.workspace.document.memory.update(context=131072)
    qtbot.waitUntil(lambda: "128k tokens" in panel.figure.bars.title, timeout=3000)
    assert panel.figure.bars.title == "KV cache at 128k tokens by attention design"


# --- the decode ceiling and the lesson's score total ----------------------------------------


def _ceilings(panel) -> dict:
    return {b.name: (b.value, b.kind) for b in panel.figure.decode.bars}


def test_the_decode_bars_are_the_ceilings_of_the_cli(panel, capsys):
    from attnviz.cli import main

    # Llama 3 8B at 131,072 tokens on an H100's 3,350 GB/s: 100.8 tokens/s, GQA in bold.
    shown = _ceilings(panel)
    assert shown["GQA"][1] == "current" and round(shown["GQA"][0], 1) == 100.8
    assert "3,350 GB/s" in panel.figure.decode.title
    assert main(["kv", "--model", "llama-3-8b", "--bandwidth", "3350", "--json"]) == 0
    cli = {c["kind"]: c["tokens_per_s"] for c in json.loads(capsys.readouterr().out)[
        "decode_ceilings"]}  # fmt: skip
    assert {k: v for k, (v, _kind) in shown.items()} == {
        "GQA": cli["card"], "MHA": cli["MHA"], "MQA": cli["MQA"], "MLA": cli["MLA"],
        "fp8": cli["fp8"],
    }  # fmt: skip
    texts = {b.name: b.text for b in panel.figure.decode.bars}
    assert texts["GQA"] == "100.8" and texts["fp8"] == "201.6"
    # MQA, MLA and fp8 raise the ceiling; MHA lowers it.
    assert shown["MHA"][0] < shown["GQA"][0] < min(shown["MLA"][0], shown["MQA"][0])


def test_the_hybrid_raises_its_ceiling_and_its_total_is_multiplied(panel, qtbot):
    _pick(panel.model, "qwen3.8-27b")
    panel.context.box.setText("262144")
    panel.context.box.editingFinished.emit()
    shown = _ceilings(panel)
    assert round(shown["GQA"][0], 1) == 47.1 and shown["all 64 layers"][1] == "without"
    assert shown["all 64 layers"][0] < shown["GQA"][0]  # the 48 linear layers' gain
    summary = panel.figure.summary.text()
    assert "× 24 heads × 16 full-attention layers = 26,388,279,066,624 entries" in summary
    assert "68,719,476,736 entries" in summary
    assert "75.75 MiB at any context" in summary  # 48 × 827,392 elements × 2 bytes


def test_the_bandwidth_picker_and_typed_values(panel):
    before = _ceilings(panel)["GQA"][0]
    _pick(panel.bandwidth, 4800.0)
    assert panel.state.bandwidth_gbs == 4800.0
    assert _ceilings(panel)["GQA"][0] == pytest.approx(before * 4800 / 3350, rel=1e-12)
    for text, value in (("8000 GB/s", 8000.0), ("2,039", 2039.0), ("1008,5", 1008.5)):
        panel.bandwidth.setEditText(text)
        panel.bandwidth.lineEdit().editingFinished.emit()
        assert panel.state.bandwidth_gbs == value, text
    for bad in ("fast", "0", "-5", "nan", "1e400", "inf"):
        panel.bandwidth.setEditText(bad)
        panel.bandwidth.lineEdit().editingFinished.emit()
        assert panel.state.bandwidth_gbs == 1008.5, bad
        assert panel.message.isVisible()
        assert panel.bandwidth.currentText() == "1,008.5 GB/s"


def test_no_parameter_count_says_the_ceiling_is_unknown(panel, qtbot):
    panel.workspace.document.memory.update(params=0.0)
    assert panel.figure.decode.bars == ()
    assert "unknown without a parameter count" in panel.figure.decode.title


def test_soak_of_the_decode_controls(qtbot, make_window):
    import contextlib
    import random

    from tests.ui.soak import (
        Action,
        Soak,
        resize,
        send_mouse_move,
        switch_large_fonts,
        switch_theme,
        undo_or_redo,
        unwind,
    )

    rng = random.Random("decode-soak")
    window = make_window(front="memory")
    panel, doc = window.panels["memory"], window.workspace.document

    def edit():
        path, value = rng.choice([
            ("memory.bandwidth_gbs", rng.choice([0.001, 1008.0, 3350.0, 1e6, 0.0, -1.0])),
            ("memory.model", rng.choice(["llama-3-8b", "qwen3.8-27b", "deepseek-v3"])),
            ("memory.context", rng.choice([1, 4096, 262_144, 2**40])),
            ("memory.state_elements", rng.choice([0, 786_432, 2**40])),
            ("memory.params", rng.choice([0.0, 8e9, 1e15])),
            ("memory.weights_dtype", rng.choice(["fp8", "int4", "fp32"])),
        ])  # fmt: skip
        with contextlib.suppress(ValueError):
            doc.set_field(path, value)

    def typed():
        panel.bandwidth.setEditText(rng.choice(["4800", "3,350 GB/s", "x", "", "1e9"]))
        panel.bandwidth.lineEdit().editingFinished.emit()

    def hover():
        view = panel.figure.decode
        send_mouse_move(view, rng.uniform(0, view.width()), rng.uniform(0, view.height()))

    Soak(
        rng,
        [
            Action("edit", edit, 0.45),
            Action("typed", typed, 0.15),
            undo_or_redo(window, rng, 0.15),
            resize(window, rng, widths=(900, 1280), heights=(600, 720), weight=0.1),
            switch_theme(window, rng, 0.05),
            switch_large_fonts(window, rng, 0.05),
            Action("rest", lambda: None, 0.05),
        ],
        after=lambda _step: hover(),
        settle=lambda _step: qtbot.wait(5),
    ).run(40)
    unwind(window)
    qtbot.wait(10)
    assert doc.memory.bandwidth_gbs == 3350.0
    assert round(_ceilings(panel)["GQA"][0], 1) == 100.8


def test_the_decode_chart_stands_beside_the_designs_when_the_figure_is_wide(panel, qtbot):
    figure = panel.figure
    panel.resize(1400, 900)
    qtbot.waitUntil(lambda: figure.decode_beside, timeout=3000)
    assert figure.splitter.indexOf(figure.decode) == 1
    assert min(figure.splitter.sizes()) >= 260  # three columns, none squeezed
    panel.resize(800, 900)
    qtbot.waitUntil(lambda: not figure.decode_beside, timeout=3000)
    assert figure.splitter.indexOf(figure.decode) == -1 and figure.decode.isVisible()


@pytest.mark.parametrize("width", [311, 420, 900])
def test_a_bar_chart_leaves_its_values_room_beside_a_long_name(qtbot, width):
    """The longest bar ends where its value still fits, however long the names (the
    Portuguese "as 64 camadas" in a narrow dock), once the names and values fit at all."""
    from attnviz.ui.theme import theme_named
    from attnviz.ui.widgets.bars import Bar, BarChart

    chart = BarChart()
    qtbot.addWidget(chart)
    chart.set_theme(theme_named("light"))
    chart.set_bars(
        [
            Bar(name="MHA", value=96.0, text="96 GiB", kind="other"),
            Bar(name="GQA", value=16.0, text="16 GiB", kind="current"),
            Bar(name="as 64 camadas", value=64.0, text="64 GiB", kind="without"),
        ],
        "KV cache",
    )
    chart.resize(width, 200)
    name_w, text_w, room = chart.columns()
    assert name_w + text_w + 20 <= width  # the names and values fit at these widths
    assert name_w + room + text_w <= width and room >= 10
