"""The prediction panel's Generate: the next tokens appended to the model's sentence,
greedy or sampled with the prediction topic's seed, on the workspace's runner with a Stop,
and the KV cache a decoder would keep, growing token by token
(:class:`GenerationMixin`, mixed into :class:`~attnviz.ui.panels.prediction.PredictionPanel`).
Strings are translated in the ``PredictionPanel`` context."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QTimer
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QSpinBox, QVBoxLayout

from attnviz.core.kvcache import kv_cache_bytes
from attnviz.model.topics.prediction import MAX_COUNT, MAX_SEED
from attnviz.ui.panels._prediction_map import EXCEPTION_NAME, POLL_MS
from attnviz.ui.widgets.binding import bind
from attnviz.ui.widgets.flow_layout import FlowLayout
from attnviz.ui.widgets.numbers import fmt
from attnviz.ui.widgets.placeholders import fill
from attnviz.ui.widgets.units import binary_bytes

#: Bytes of a cached element: attnviz runs a model in float32.
KV_ELEMENT_BYTES = 4
#: Steps of the KV-cache bar.
KV_STEPS = 1000


class GenerationMixin:
    """Generate / Stop, the note of what was appended, and the KV-cache bar."""

    def _build_generation(self) -> QVBoxLayout:
        row = FlowLayout()
        self.gen_key = None  # the generation on its way
        self.count = QSpinBox()
        self.count.setObjectName("count")
        self.count.setRange(1, MAX_COUNT)
        self.count.setPrefix(QCoreApplication.translate("PredictionPanel", "tokens "))
        self.count.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel", "Tokens one Generate appends to the model's sentence"
            )
        )
        self.count.valueChanged.connect(lambda v: self._write(self.count, count=int(v)))
        self.seed = QSpinBox()
        self.seed.setObjectName("seed")
        self.seed.setRange(-1, MAX_SEED)
        self.seed.setPrefix(QCoreApplication.translate("PredictionPanel", "seed "))
        self.seed.setSpecialValueText(QCoreApplication.translate("PredictionPanel", "greedy"))
        self.seed.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel",
                "Greedy: the most likely token; a seed: sampled from the distribution the "
                "bars show (numpy's Generator), the same tokens for the same seed",
            )
        )
        self.seed.valueChanged.connect(lambda v: self._write(self.seed, seed=int(v)))
        self.mirror("count", self.count)
        self.mirror("seed", self.seed)
        self.generate = QPushButton(QCoreApplication.translate("PredictionPanel", "&Generate"))
        self.generate.setObjectName("generate")
        self.generate.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel",
                "Append the next tokens to the sentence (undoable); it is captured again",
            )
        )
        self.generate.clicked.connect(self._on_q_generate)
        self.gen_note = QLabel()
        self.gen_note.setObjectName("gen_note")
        self.gen_note.setWordWrap(True)
        self.gen_note.hide()  # a line of its own, only when it says something
        for widget in (self.count, self.seed, self.generate):
            row.addWidget(widget)
        self.kv_bar = QProgressBar()
        self.kv_bar.setObjectName("kv_cache")
        self.kv_bar.setTextVisible(True)
        self.kv_bar.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel",
                "The key and value cache a decoder keeps for the sentence (its softmax layers' "
                "K and V of every token, a sliding layer's only within its window), in float32 "
                "as attnviz runs the model: it grows with each generated token. attnviz itself "
                "runs the whole sentence again for each token, to prove what it shows.",
            )
        )
        self.kv_bar.hide()
        outer = QVBoxLayout()
        outer.addLayout(row)
        outer.addWidget(self.gen_note)
        outer.addWidget(self.kv_bar)
        self.gen_poll = QTimer(self)
        self.gen_poll.setInterval(POLL_MS)
        self.gen_poll.timeout.connect(self._on_q_gen_poll)
        bind(self, self.resolver.generated, self._on_generated)
        bind(self, self.resolver.generation_failed, self._on_generation_failed)
        return outer

    # --- generation --------------------------------------------------------------------
    def _on_q_generate(self) -> None:
        if self.resolver.generation_running:
            self.resolver.stop_generation()
            self._gen_say(
                QCoreApplication.translate("PredictionPanel", "Stopping after this token…")
            )
            return
        self.generate.setText(QCoreApplication.translate("PredictionPanel", "&Stop"))
        self.generate.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel", "Stop after the token being made; keep the others"
            )
        )
        self._gen_say(QCoreApplication.translate("PredictionPanel", "Generating…"))
        now = self._is_synchronous()
        if not now:
            self.gen_poll.start()
        self._asking = True  # an answer made here arrives before the key is returned
        try:
            key = self.resolver.request_generation(now=now)
        finally:
            self._asking = False
        if self.resolver.generation_running:
            self.gen_key = key

    _asking = False

    def _on_q_gen_poll(self) -> None:
        if not self.resolver.generation_running:
            self.gen_poll.stop()
            return
        if self.gen_key is None:
            return
        done = round(self.resolver.generation_progress * self.gen_key[3])
        self._gen_say(
            fill(
                QCoreApplication.translate("PredictionPanel", "Generating… %1 of %2"),
                done,
                self.gen_key[3],
            )
        )
        res = self.results
        if res is not None:
            n = len(res.tokens)
            self._show_kv(res, n + done, n + self.gen_key[3])

    def _gen_say(self, text: str) -> None:
        self.gen_note.setText(text)
        self.gen_note.setVisible(bool(text.strip()))

    def _generation_idle(self) -> None:
        self.gen_poll.stop()
        self.generate.setText(QCoreApplication.translate("PredictionPanel", "&Generate"))
        self.generate.setToolTip(
            QCoreApplication.translate(
                "PredictionPanel",
                "Append the next tokens to the sentence (undoable); it is captured again",
            )
        )

    def _on_generated(self, key, found) -> None:
        if key != self.gen_key and not self._asking:
            return
        self.gen_key = None
        self._generation_idle()
        attention = self.workspace.document.attention
        model = key[0]
        if (attention.head, attention.model_path, attention.model_text) != model:
            self._gen_say(
                QCoreApplication.translate(
                    "PredictionPanel", "The sentence changed meanwhile: nothing appended."
                )
            )
            return
        if found.ids:
            attention.update(model_text=found.text)  # undoable; captured and proven again
        words = " ".join(
            f"“{t}” ({fmt(p, 3)})" for t, p in zip(found.tokens, found.probs, strict=True)
        )
        text = (
            fill(QCoreApplication.translate("PredictionPanel", "Appended %1."), words)
            if found.ids
            else QCoreApplication.translate("PredictionPanel", "Nothing appended.")
        )
        if found.ended:
            text += " " + QCoreApplication.translate(
                "PredictionPanel", "The model ended the sequence."
            )
        elif found.stopped:
            text += " " + QCoreApplication.translate("PredictionPanel", "Stopped.")
        self._gen_say(text)

    def _on_generation_failed(self, key, exc) -> None:
        if key != self.gen_key and not self._asking:
            return
        self.gen_key = None
        self._generation_idle()
        self._gen_say(EXCEPTION_NAME.sub("", f"{type(exc).__name__}: {exc}", count=1))

    # --- the KV cache ----------------------------------------------------------------
    def _show_kv(self, res, tokens: int, final: int | None = None) -> None:
        """The KV cache of ``tokens`` tokens; while generating, out of ``final``'s."""
        card = getattr(res, "kv_card", None)
        if card is None or tokens < 1:
            self.kv_bar.hide()
            return
        now = float(kv_cache_bytes(card, tokens, 1, KV_ELEMENT_BYTES))
        self.kv_bar.setRange(0, KV_STEPS)
        if final is None or final <= tokens:
            self.kv_bar.setValue(KV_STEPS)
            text = fill(
                QCoreApplication.translate("PredictionPanel", "KV cache: %1 tokens, %2 (float32)"),
                tokens,
                binary_bytes(now),
            )
        else:
            end = float(kv_cache_bytes(card, final, 1, KV_ELEMENT_BYTES))
            self.kv_bar.setValue(round(KV_STEPS * now / end) if end > 0 else KV_STEPS)
            text = fill(
                QCoreApplication.translate(
                    "PredictionPanel", "KV cache: %1 of %2 tokens, %3 of %4 (float32)"
                ),
                tokens,
                final,
                binary_bytes(now),
                binary_bytes(end),
            )
        self.kv_bar.setFormat(text)
        self.kv_bar.setAccessibleDescription(text)
        self.kv_bar.show()
