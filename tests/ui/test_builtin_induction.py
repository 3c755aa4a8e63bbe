"""builtin:induction in the window: File → Open Model's path (and ``attnviz --model``'s,
which goes the same way) takes the name, opens the shipped folder, and the heatmap shows
layer 1's induction head as transformers computes it."""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from attnviz.core.builtin_models import builtin_folder  # noqa: E402

WORDS = "apple river stone cloud green house"
TEXT = f"{WORDS} {WORDS}"


def test_the_window_opens_builtin_induction(qtbot, make_window):
    window = make_window()
    window.models.open_path("builtin:induction", TEXT)
    qtbot.waitUntil(lambda: not window.models.busy, timeout=120_000)
    state = window.document.attention
    assert state.model_path == "builtin:induction"  # the name, not this install's folder
    assert list(state.tokens) == ["[BOS]", *TEXT.split()]
    window.document.attention.update(layer=1, model_head=1)
    model = transformers.LlamaForCausalLM.from_pretrained(
        builtin_folder("induction"), attn_implementation="eager"
    ).eval()
    tok = transformers.AutoTokenizer.from_pretrained(builtin_folder("induction"))
    with torch.no_grad():
        out = model(torch.tensor([tok(TEXT).input_ids]), output_attentions=True)
    want = out.attentions[1][0, 1].numpy()
    shown = np.asarray(window.resolver.results.attention.weights)
    np.testing.assert_allclose(shown, want, atol=1e-5)
    # The second "cloud" (query 10) looks at "green" (key 5), after the first "cloud".
    assert shown[10].argmax() == 5
    # The memory card from the open model reads the shipped folder's config.
    window.models.fill_memory_card()
    memory = window.document.memory
    assert (memory.layers, memory.heads, memory.head_dim) == (2, 2, 32)


def test_an_unknown_builtin_is_one_line_in_the_window(qtbot, make_window):
    window = make_window()
    failures = []
    window.models.sigFailed.connect(failures.append)
    window.models.open_path("builtin:nope", TEXT)
    assert failures == ["builtin:nope: no such shipped model (shipped: builtin:induction)"]
