"""The attention topic's choices, limits and groups of fields (no Qt).

Shared by the topic (:mod:`attnviz.model.topics.attention`, which names them all for the
panels and scripts) and by the modules that fill its Q, K and V, one per head source.
"""

from __future__ import annotations

from attnviz.core.heads import HEAD_KINDS

#: Head sources: vectors typed by hand, one of the synthetic heads, learned projections
#: of token embeddings (many heads), or a real model's head.
HEAD_SOURCES = ("manual", *HEAD_KINDS, "projections", "model")
#: ``mixing``: the matrix M of ``out_t = Σ_s M[t, s] v_s`` (a softmax head's weights; a
#: real hybrid's other layers, their own proven M).
MATRICES = ("scores", "weights", "output", "mixing")
COLORMAPS = ("viridis", "cividis", "magma", "inferno", "plasma", "diverging")
#: Number formats of the steps panel's naive softmax (float16 overflows first).
SOFTMAX_DTYPES = ("float64", "float32", "float16")
BACKENDS = ("numpy", "torch", "auto")
#: Longest sentence (a real model's up to 8,192 tokens); past DENSE_LIMIT the resolver
#: works by row blocks and keeps no n × n float64 matrix (one float32 q kᵀ up to 4,096).
MAX_TOKENS = 8192
MAX_D_K = 1024
#: Largest seed: what a spin box (a C int) can show.
MAX_SEED = 2**31 - 1
#: The smallest and largest temperatures a control may set; beyond them the softmax is
#: numerically a hard argmax or a flat line, which the ends already show.
TEMPERATURE_RANGE = (0.01, 100.0)
ARRAYS = ("q", "k", "v")
#: Where the upstream gradient dO comes from (the gradient panel).
GRAD_SOURCES = ("preset", "random", "onehot")
#: The matrices of the projections source: embeddings X, then W_Q, W_K, W_V, W^O.
MATS = ("x", "w_q", "w_k", "w_v", "w_o")
MAX_D_MODEL = 1024
MAX_HEADS = 64
#: Widest h·d_head of W_Q: four W matrices of 1024 × 2048 are 64 MB, still instant to draw.
MAX_PROJ_WIDTH = 2048
#: Fields behind the projections' Q, K and V.
PROJ_KEYS = frozenset(
    {"tokens", "head", "seed", "d_k", "d_model", "n_heads", "n_kv_heads", "head_index", *MATS}
)

#: Real models: most layers and query heads addressed, longest folder name and sentence.
#: A head of a short convolution (LFM2) or of Mamba (Jamba) is one of its channels: up to
#: 2 × the hidden size, some 16,000 in the largest of them.
MAX_LAYERS = 512
MAX_MODEL_HEADS = 1 << 15
MAX_PATH_TEXT = 1024
#: ≈ 8k tokens of ordinary text: a sentence the capture cannot hold is refused by its own
#: token bound, in tokens (a 512-token text is some 2,500 characters).
MAX_SENTENCE = 64_000
#: Fields behind a model head's Q, K and V.
MODEL_KEYS = frozenset({"head", "model_path", "model_text", "layer", "model_head"})
#: Typing these on a model head makes it a what-if: it leaves the model.
DETACH_KEYS = frozenset({"tokens", "d_k", *ARRAYS})
