"""Copying a repeat: which tokens can be copied, and copy accuracy from the ablation map's
own passes against transformers with a head zeroed by a pre-hook on W^O's input."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from attnviz.core import induction
from attnviz.core.copying import copy_accuracy, copyable


@given(st.integers(2, 40), st.integers(0, 2**32 - 1))
def test_on_a_repeat_of_distinct_words_copyable_is_what_the_training_counts(length, seed):
    rng = np.random.default_rng(seed)
    ids = induction.repeat_batch(rng, 1, length)[0]
    positions, expected = copyable(ids)
    np.testing.assert_array_equal(positions, np.arange(length + 1, 2 * length))
    np.testing.assert_array_equal(expected, ids[positions + 1])
    # Copy accuracy of random logits is the training's own definition of it.
    logits = rng.normal(size=(1, ids.size, 9))
    ids_small = ids % 9
    tops = logits[0].argmax(-1)[positions]
    assert copy_accuracy(tops, ids_small[positions + 1]) == pytest.approx(
        induction.copy_accuracy(logits, ids_small[None], length)
    )


def test_a_token_whose_continuation_changed_cannot_be_copied():
    # "a b c a d": "a" was followed by "b" before, and now by "d": nothing to copy.
    positions, expected = copyable([5, 1, 2, 5, 3])
    assert positions.tolist() == [] and expected.tolist() == []
    # "x y z x y z": the second "x" and "y" go on as before; the last "z" has no next token.
    positions, expected = copyable([7, 8, 9, 7, 8, 9])
    assert positions.tolist() == [3, 4] and expected.tolist() == [8, 9]
    assert np.isnan(copy_accuracy(np.zeros((2, 0)), np.zeros(0))).all()


torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from attnviz.core.builtin_models import builtin_folder  # noqa: E402
from attnviz.core.hf_capture import load_model  # noqa: E402
from attnviz.core.hf_predict import ablation_map  # noqa: E402

WORDS = [
    "whale",
    "garden",
    "mirror",
    "violin",
    "kite",
    "ocean",
    "forest",
    "drum",
    "camera",
    "honey",
    "tunnel",
    "pear",
]
TEXT = " ".join(WORDS + WORDS)


@pytest.fixture(scope="module")
def shipped():
    # Under the numpy floor transformers' Llama cannot import (scipy needs numpy 1.26).
    pytest.importorskip("transformers.models.llama.modeling_llama")
    folder = builtin_folder("induction")
    model = transformers.LlamaForCausalLM.from_pretrained(
        folder, attn_implementation="eager", dtype=torch.float32
    ).eval()
    tok = transformers.AutoTokenizer.from_pretrained(folder)
    return load_model(folder), model, tok


def _tops(model, ids, off=None):
    """transformers' most likely next token at every position, with head ``off`` =
    (layer, head) zeroed in W^O's input."""
    hooks = []
    if off is not None:
        layer, head = off
        width = model.config.head_dim

        def pre(module, args):
            x = args[0].clone()
            x[..., head * width : (head + 1) * width] = 0.0
            return (x, *args[1:])

        hooks.append(model.model.layers[layer].self_attn.o_proj.register_forward_pre_hook(pre))
    try:
        with torch.no_grad():
            return model(torch.tensor([ids])).logits[0].argmax(-1).numpy()
    finally:
        for h in hooks:
            h.remove()


def test_the_maps_copy_accuracy_is_transformers_with_the_head_zeroed(shipped):
    loaded, model, tok = shipped
    ids = tok(TEXT).input_ids
    positions, expected = copyable(ids)
    assert positions.size == len(WORDS) - 1
    amap = ablation_map(loaded, TEXT)
    assert amap.copy_count == positions.size
    assert amap.copy_clean == copy_accuracy(_tops(model, ids)[positions], expected)
    assert amap.copy_clean > 0.9  # the shipped model copies the repeat
    want = np.array(
        [
            [
                copy_accuracy(_tops(model, ids, (layer, head))[positions], expected)
                for head in (0, 1)
            ]
            for layer in (0, 1)
        ]
    )
    np.testing.assert_array_equal(amap.copying, want)
    # Either head of the circuit off breaks the copy: layer 0's previous-token head,
    # layer 1's induction head.
    assert amap.copying[0, 1] <= 0.5 and amap.copying[1, 1] <= 0.5


def test_a_sentence_that_repeats_nothing_has_no_copy_accuracy(shipped):
    amap = ablation_map(shipped[0], " ".join(WORDS))
    assert amap.copy_count == 0 and np.isnan(amap.copy_clean)
    assert np.isnan(amap.copying).all()
