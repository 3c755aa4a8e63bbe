"""The heads panel's resolver: every head of the projections at once, their shapes and FLOPs.

Results (pure functions of the ``attention`` topic and, with RoPE on, the ``positions``
topic's rotation fields), for ``head == "projections"``:

- X and the W matrices in use (typed or drawn from the seed);
- Q of every query head ``(h, n, d_head)``, K and V of every KV head ``(h_kv, n, d_head)``,
  the scores and weights of every head ``(h, n, n)``, each head's output ``(h, n,
  d_head)``, their concatenation ``(n, h·d_head)`` and the layer's output = concat · W^O
  ``(n, d_model)``; each head's term of it, ``O_i · W^O_i`` ``(h, n, d_model)``, and the
  output with the heads of ``heads_off`` switched off (their slice of W^O's input set to 0,
  :mod:`attnviz.core.head_mixing`). Each head is computed as the heatmap computes the
  selected one (the same products, in the same order), so the grid's tile of head i is
  the heatmap's matrix when head i is selected;
- the shapes table, one row per array, with the live sizes;
- the FLOP counts of one head of width D = h·d_head, of h heads of width d_head (MHA), and
  of this model's h_kv KV heads (:func:`attnviz.core.multihead.attention_flops`).

For ``head == "model"`` the heads are those of the selected layer of the captured
sentence (:mod:`attnviz.model.real_model`): Q of every query head, K and V of every KV head
as the model's attention product received them, and each head's map computed as the
heatmap computes the selected one (the model's own weights, to float32 rounding). A real
model's X and W are not captured (the products hold biases, norms and RoPE), so the
blocks and the shapes table describe the layer and there is no W^O output. The results
also carry the capture itself: the layers panel draws every layer's maps from it.

Any other head source is one head: Q, K, V are the topic's own, there is no X or W.
Above :data:`MAX_GRID_CELLS` score entries the per-head matrices are not computed (the
GUI thread would stall); the shapes and FLOPs remain.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attnviz.core.attention import attention_from_scores, score_scale
from attnviz.core.head_mixing import contribution_norms, head_contributions, switched_output
from attnviz.core.hf_capture import LONG_TOKENS
from attnviz.core.multihead import FlopCount, attention_flops, kv_groups
from attnviz.core.score_terms import ScoreTerms
from attnviz.model import real_model
from attnviz.model.data_array import DataArray
from attnviz.model.resolve.attention import ROPE_KEYS, build_mask, rope_frequencies_for, rotate
from attnviz.model.resolve.lazy import LazyResolver
from attnviz.model.topics.attention import MATS, AttentionState

#: Most score entries (h·n²) the panel computes: 4M (32 MB per array), ~40 ms of softmax.
MAX_GRID_CELLS = 1 << 22
#: Fields that change nothing the heads panel computes (restyles, labels, the gradient).
IGNORED = AttentionState.restyle_keys() | frozenset(
    {"preset_id", "value_labels", "backend", "grad_source", "grad_seed", "grad_dim", "d_output"}
)
#: The selected head alone changes no result (its Q, K, V follow from the others).
SELECTION = frozenset({"head_index", "model_head", "q", "k", "v"})


@dataclass(frozen=True)
class ShapeRow:
    """One row of the shapes table: result key, symbol, formula and live shape."""

    key: str
    symbol: str
    formula: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class HeadsResults:
    """What the heads panel draws (see the module docstring); arrays None when too large."""

    projections: bool
    tokens: tuple[str, ...]
    n_heads: int
    n_kv_heads: int
    d_head: int
    d_model: int | None
    groups: tuple[tuple[int, ...], ...]
    arrays: dict[str, np.ndarray]
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    mask: np.ndarray | None
    scores: np.ndarray | None
    weights: np.ndarray | None
    head_outputs: np.ndarray | None
    concat: np.ndarray | None
    output: np.ndarray | None
    shapes: tuple[ShapeRow, ...]
    flops: dict[str, FlopCount]
    too_large: str | None = None
    #: A real model's captured sentence (every layer) and the layer shown, else None.
    capture: object = None
    layer: int = 0
    #: The projections' heads switched off, each head's term of the output through W^O
    #: ``(h, n, d_model)`` and the output without the heads switched off (None elsewhere).
    heads_off: tuple[int, ...] = ()
    contributions: np.ndarray | None = None
    output_switched: np.ndarray | None = None

    @property
    def model(self) -> bool:
        """True when the heads are a real model's layer."""
        return self.capture is not None

    def array(self, key: str) -> np.ndarray | None:
        """The array a shapes-table row describes (``x``, ``q``, ``weights``, …).

        A one-head source's arrays lose their head axis here, as its table writes them.
        """
        if key in self.arrays:
            return self.arrays[key]
        arr = getattr(self, key, None)
        one_head = not self.projections and key in ("q", "k", "v", "scores", "weights")
        return arr[0] if one_head and arr is not None else arr


def shape_rows(projections: bool, n: int, h: int, h_kv: int, d: int, d_model, d_v: int):
    """The shapes table for a layout (``d_v`` is the value width of a one-head source)."""
    if not projections:
        return (
            ShapeRow("q", "Q", "n × d_k", (n, d)),
            ShapeRow("k", "K", "n × d_k", (n, d)),
            ShapeRow("v", "V", "n × d_v", (n, d_v)),
            ShapeRow("scores", "S = QKᵀ/√d_k", "n × n", (n, n)),
            ShapeRow("weights", "A = softmax(S)", "n × n", (n, n)),
            ShapeRow("output", "O = AV", "n × d_v", (n, d_v)),
        )
    return (
        ShapeRow("x", "X", "n × d_model", (n, d_model)),
        ShapeRow("w_q", "W_Q", "d_model × h·d_head", (d_model, h * d)),
        ShapeRow("w_k", "W_K", "d_model × h_kv·d_head", (d_model, h_kv * d)),
        ShapeRow("w_v", "W_V", "d_model × h_kv·d_head", (d_model, h_kv * d)),
        ShapeRow("q", "Q = XW_Q", "h × n × d_head", (h, n, d)),
        ShapeRow("k", "K = XW_K", "h_kv × n × d_head", (h_kv, n, d)),
        ShapeRow("v", "V = XW_V", "h_kv × n × d_head", (h_kv, n, d)),
        ShapeRow("scores", "S = QKᵀ/√d_head", "h × n × n", (h, n, n)),
        ShapeRow("weights", "A = softmax(S)", "h × n × n", (h, n, n)),
        ShapeRow("head_outputs", "O_i = A_i V", "h × n × d_head", (h, n, d)),
        ShapeRow("concat", "concat(O_i)", "n × h·d_head", (n, h * d)),
        ShapeRow("w_o", "W^O", "h·d_head × d_model", (h * d, d_model)),
        ShapeRow("output", "O = concat · W^O", "n × d_model", (n, d_model)),
    )


def model_shape_rows(n: int, h: int, h_kv: int, d: int, d_model: int):
    """The shapes table of a real model's layer (products with biases, norms and RoPE)."""
    return (
        ShapeRow("x", "X", "n × d_model", (n, d_model)),
        ShapeRow("q", "Q = RoPE(X·W_Q)", "h × n × d_head", (h, n, d)),
        ShapeRow("k", "K = RoPE(X·W_K)", "h_kv × n × d_head", (h_kv, n, d)),
        ShapeRow("v", "V = X·W_V", "h_kv × n × d_head", (h_kv, n, d)),
        ShapeRow("scores", "S = QKᵀ/√d_head", "h × n × n", (h, n, n)),
        ShapeRow("weights", "A = softmax(S)", "h × n × n", (h, n, n)),
        ShapeRow("head_outputs", "O_i = A_i V", "h × n × d_head", (h, n, d)),
        ShapeRow("concat", "concat(O_i)", "n × h·d_head", (n, h * d)),
        ShapeRow("output", "O = concat · W^O", "n × d_model", (n, d_model)),
    )


def flop_table(n: int, d_model: int, h: int, h_kv: int, d: int) -> dict[str, FlopCount]:
    """``wide``: one head of width h·d; ``narrow``: h heads of width d, one KV head each;
    ``model``: the h heads with h_kv KV heads."""
    return {
        "wide": attention_flops(n, d_model, 1, 1, h * d),
        "narrow": attention_flops(n, d_model, h, h, d),
        "model": attention_flops(n, d_model, h, h_kv, d),
    }


class HeadsResolver(LazyResolver):
    """Lazy resolver of the heads panel (reads the ``attention`` topic)."""

    TOPIC = "attention"
    READS = {"positions": ROPE_KEYS}
    IGNORES = IGNORED

    def reads_browse(self) -> bool:
        return False

    def _relevant(self, topic: str, names: frozenset) -> bool:
        if topic == self.TOPIC and names & {"head_index", "model_head"} and names <= SELECTION:
            return False  # the tiles stay; the panel moves its highlight
        if topic == "positions" and not self.topic.rope:
            return False
        return super()._relevant(topic, names)

    @staticmethod
    def _terms(s, cap, head: int) -> ScoreTerms:
        """Head ``head``'s capping, ALiBi slope and sink: a real model's own for every head
        but the one shown, whose settings are the state's (they may be a what-if)."""
        if cap is None or head == s.model_head:
            return s.score_terms()
        return real_model.head_terms(cap.layer(s.layer), head)

    def _other_kind(self, s, cap) -> HeadsResults:
        """A layer without softmax heads (a hybrid's Gated DeltaNet, a state-space model's
        Mamba-2): no heads to draw here, said in one line; the capture still goes to the
        layers panel, which draws the layer's mixing matrices."""
        n = len(s.tokens)
        empty = np.zeros((0, n, 0))
        message = (
            f"layer {s.layer} of {cap.name} is a {cap.layer_kind(s.layer)} layer, not softmax "
            "attention: it has no heads of q, k and v here; the layers panel and the heatmap "
            "draw its mixing matrices"
        )
        return HeadsResults(
            projections=True, tokens=tuple(s.tokens), n_heads=0, n_kv_heads=0, d_head=0,
            d_model=cap.hidden_size, groups=kv_groups(1, 1), arrays={}, shapes=(), flops={},
            capture=cap, layer=s.layer, q=empty, k=empty, v=empty, mask=None, scores=None,
            weights=None, head_outputs=None, concat=None, output=None, too_large=message,
        )  # fmt: skip

    def compute(self) -> HeadsResults:
        s = self.topic
        cap = s.capture()
        proj = s.head == "projections" or cap is not None
        n, d = s.n, s.d_k
        h, h_kv = (s.n_heads, s.n_kv_heads) if proj else (1, 1)
        d_model = s.d_model if proj else None
        if cap is not None and cap.captured(s.layer) is None:
            return self._other_kind(s, cap)
        if cap is not None:
            lc = cap.layer(s.layer)
            h, h_kv, d_model, arrays = lc.q.shape[0], lc.k.shape[0], cap.hidden_size, {}
            q, k, v = (np.asarray(a, dtype=np.float64) for a in (lc.q, lc.k, lc.v))
        elif proj:
            arrays = s.projections()
            x = arrays["x"]
            # Block by block, as project_head slices them: the selected head's numbers are
            # then the heatmap's to the last bit.
            q = np.stack([x @ arrays["w_q"][:, i * d : (i + 1) * d] for i in range(h)])
            k = np.stack([x @ arrays["w_k"][:, g * d : (g + 1) * d] for g in range(h_kv)])
            v = np.stack([x @ arrays["w_v"][:, g * d : (g + 1) * d] for g in range(h_kv)])
        else:
            arrays = {}
            q, k, v = s.q[None], s.k[None], s.v[None]
        d_v = v.shape[-1]
        if cap is not None:
            shapes = model_shape_rows(n, h, h_kv, d, d_model)
        else:
            shapes = shape_rows(proj, n, h, h_kv, d, d_model, d_v)
        flops = flop_table(n, d_model, h, h_kv, d) if proj else {}
        common = dict(
            projections=proj,
            tokens=tuple(s.tokens),
            n_heads=h,
            n_kv_heads=h_kv,
            d_head=d,
            d_model=d_model,
            groups=kv_groups(h, h_kv),
            arrays=arrays,
            shapes=shapes,
            flops=flops,
            capture=cap,
            layer=s.layer if cap is not None else 0,
        )
        mask = build_mask(s)
        if h * n * n > MAX_GRID_CELLS:
            message = (
                f"h·n² = {h}·{n}² = {h * n * n:,} score entries: more than the "
                f"{MAX_GRID_CELLS:,} the heads panel computes; the heatmap shows the "
                "selected head"
            )
            return HeadsResults(
                **common,
                q=q,
                k=k,
                v=v,
                mask=mask,
                scores=None,
                weights=None,
                head_outputs=None,
                concat=None,
                output=None,
                too_large=message,
            )
        c = score_scale(d, s.scale, s.temperature)
        inv = rope_frequencies_for(d, self.document.positions.snapshot()) if s.rope else None
        group = h // h_kv
        q_used, scores, weights, outs = [], [], [], []
        for i in range(h):
            qi, kg = q[i], k[i // group]
            if inv is not None and inv.size:
                qi, kg = rotate(qi, kg, inv)
            res = attention_from_scores(
                (qi @ kg.T) * c, v[i // group], mask=mask, terms=self._terms(s, cap, i)
            )
            q_used.append(qi)
            scores.append(res.scores)
            weights.append(res.weights)
            outs.append(res.output)
        head_outputs = np.stack(outs)
        through: dict = {"heads_off": tuple(s.heads_off) if proj and cap is None else ()}
        if cap is not None:
            concat, output = np.concatenate(outs, axis=1), None  # W^O is not captured
        elif proj:
            concat = np.concatenate(outs, axis=1)
            output = concat @ arrays["w_o"]
            through["contributions"] = head_contributions(head_outputs, arrays["w_o"])
            through["output_switched"] = switched_output(head_outputs, arrays["w_o"], s.heads_off)
        else:
            concat, output = head_outputs[0], head_outputs[0]
        return HeadsResults(
            **common,
            q=q,
            k=k,
            v=v,
            mask=mask,
            scores=np.stack(scores),
            weights=np.stack(weights),
            head_outputs=head_outputs,
            concat=concat,
            output=output,
            **through,
        )


RESOLVER = HeadsResolver


# --- exported data (attnviz export --panel heads --matrix NAME) --------------------------
def _labels(prefix: str, heads: int, width: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}:{c}" for i in range(heads) for c in range(width))


def _dims(count: int) -> tuple[str, ...]:
    return tuple(f"d{j}" for j in range(count))


def _matrix_data(name: str):
    def read(workspace) -> DataArray:
        res = workspace.resolver_for("heads").results
        if res.model:
            raise ValueError(
                f"{name} of a real model is not captured (its products hold biases, norms "
                "and RoPE); export q, k, v or the weights of its heads"
            )
        if not res.projections:
            raise ValueError(
                f"{name} exists only when Q, K and V come from projections "
                "(set attention.head=projections)"
            )
        arr, h, h_kv, d = res.arrays[name], res.n_heads, res.n_kv_heads, res.d_head
        if name == "x":
            return DataArray(arr, res.tokens, _dims(arr.shape[1]))
        if name == "w_o":
            return DataArray(arr, _labels("h", h, d), _dims(arr.shape[1]))
        heads, prefix = (h, "h") if name == "w_q" else (h_kv, "kv")
        return DataArray(arr, _dims(arr.shape[0]), _labels(prefix, heads, d))

    return read


def _checked(res: HeadsResults, arr):
    if arr is None:
        if res.model and res.too_large is None:
            raise ValueError(
                "a real model's layer output needs W^O, which is not captured; "
                "export the weights of its heads"
            )
        raise ValueError(res.too_large or "nothing to export")
    return arr


def _weights(workspace) -> DataArray:
    res = workspace.resolver_for("heads").results
    return DataArray(_checked(res, res.weights))


def _output(workspace) -> DataArray:
    res = workspace.resolver_for("heads").results
    out = _checked(res, res.output)
    return DataArray(out, res.tokens, _dims(out.shape[1]))


# --- exported data of the layers panel (attnviz export --panel layers --matrix NAME) ------
def _capture(workspace):
    cap = workspace.state.capture()
    if cap is None:
        raise ValueError(
            "the layers panel shows a real model: set attention.head=model "
            "(attnviz export --model DIR --text TEXT)"
        )
    return cap


def _model_weights(workspace) -> DataArray:
    """The model's own weights of the head shown (n × n), as transformers returns them."""
    cap, s = _capture(workspace), workspace.state
    w = _kept_weights(cap, s.layer)[s.model_head].astype(np.float64)
    return DataArray(w, tuple(s.tokens), tuple(s.tokens))


def _kept_weights(cap, layer: int) -> np.ndarray:
    """The model's own weights of ``layer``, (h, n, n); refused past LONG_TOKENS, where the
    capture keeps only q, k and v (the heatmap's weights, proven equal, export instead)."""
    try:
        lc = cap.layer(layer)
    except real_model.ModelError as exc:  # a hybrid's layer of another kind
        raise ValueError(str(exc)) from None
    if lc.weights is None:
        raise ValueError(
            f"past {LONG_TOKENS} tokens the capture keeps q, k and v, not the model's n × n "
            "weights; export the heatmap's (proven equal to the model's within 1e-4): "
            "--panel heatmap --matrix weights"
        )
    return lc.weights


def _layer_weights(workspace) -> DataArray:
    """Every head of the layer shown, (h, n, n), the model's own weights."""
    cap, s = _capture(workspace), workspace.state
    return DataArray(_kept_weights(cap, s.layer).astype(np.float64))


def _link(workspace) -> DataArray:
    """A[query → key] of the selected cell for every layer (rows) and head (columns)."""
    from attnviz.model.real_model import link_strength

    cap, s = _capture(workspace), workspace.state
    if s.selected_cell is None:
        raise ValueError("choose the link first: --set attention.selected_cell=[query, key]")
    query, key = s.selected_cell
    a = link_strength(cap, query, key)  # a layer without softmax attention: NaN
    return DataArray(
        a,
        tuple(f"layer {i}" for i in range(a.shape[0])),
        tuple(f"head {j}" for j in range(a.shape[1])),
    )


def _through_w_o(workspace) -> HeadsResults:
    """The results, when they hold each head's term through W^O (else ``ValueError``)."""
    res = workspace.resolver_for("heads").results
    if res.contributions is None:
        if res.model:
            raise ValueError(
                "a real model's W^O is not captured: its heads' effect on the prediction is "
                "the prediction panel's (--panel prediction --matrix ablation)"
            )
        if not res.projections:
            raise ValueError(
                "each head's term through W^O needs the projections "
                "(set attention.head=projections)"
            )
        raise ValueError(res.too_large or "nothing to export")
    return res


def _contributions(workspace) -> DataArray:
    """Each head's term of the output, (h, n, d_model): O_i · W^O_i; they sum to O."""
    return DataArray(_through_w_o(workspace).contributions)


def _contribution_norms(workspace) -> DataArray:
    """The size of each head's term per query row (n × h), switched off or not."""
    res = _through_w_o(workspace)
    norms = contribution_norms(res.contributions)
    heads = tuple(f"head {i}" for i in range(norms.shape[1]))
    return DataArray(norms, res.tokens, heads, corner="‖O_i·W^O_i‖")


def _output_switched(workspace) -> DataArray:
    """The output with the heads of attention.heads_off switched off (n × d_model)."""
    res = _through_w_o(workspace)
    out = res.output_switched
    return DataArray(out, res.tokens, _dims(out.shape[1]))


#: The heads panel's arrays beside the projections, by name.
_READERS = {
    "weights": _weights,
    "output": _output,
    "contributions": _contributions,
    "contribution_norms": _contribution_norms,
    "output_switched": _output_switched,
}


def heads_data(workspace, name: str) -> DataArray:
    """The heads panel's array ``name``: the projections (x, w_q, w_k, w_v, w_o), the
    heads' weights, the layer output, each head's term of it through W^O
    (``contributions``, their sizes ``contribution_norms``) and the output with the heads
    of ``attention.heads_off`` switched off (``output_switched``)."""
    if name in MATS:
        return _matrix_data(name)(workspace)
    return _READERS[name](workspace)


def layers_data(workspace, name: str) -> DataArray:
    """The layers panel's array ``name`` of a real model: weights, layer_weights, link."""
    return {"weights": _model_weights, "layer_weights": _layer_weights, "link": _link}[name](
        workspace
    )
