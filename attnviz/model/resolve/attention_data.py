"""What ``attnviz export --panel heatmap|steps|editor --matrix NAME`` writes: the heatmap's
matrices (a real hybrid's other layers: their proven mixing matrix), q, k, v, and the steps
panel's rows of the query shown. Split from :mod:`attnviz.model.resolve.attention`."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attnviz.model.data_array import DataArray
from attnviz.model.resolve.attention import QuerySteps
from attnviz.model.resolve.softmax_row import SoftmaxRow, softmax_row
from attnviz.model.topics.attention import AttentionState

#: A heatmap matrix's CSV corner: its symbol, and that rows are queries.
MATRIX_CORNERS = {
    "mixing": "M: query \\ column",
    "scores": "S: query \\ column",
    "weights": "A: query \\ column",
    "output": "O: query \\ column",
}


def heatmap_data(workspace, name: str) -> DataArray:
    """The heatmap's (and the editor's) array ``name``: scores, weights, output, mixing (a
    real hybrid's other layers: their proven M, refusing S, A and O), q, k, v."""
    state, res = workspace.state, workspace.resolver.results
    tokens = tuple(state.tokens)
    if name in ("scores", "weights", "output", "mixing"):
        proven = _model_mixing(state, name)
        if proven is not None:
            return DataArray(proven, tokens, tokens, corner=MATRIX_CORNERS[name])
    if name in ("scores", "weights", "mixing"):
        return DataArray(res.matrix(name), tokens, tokens, corner=MATRIX_CORNERS[name])
    if name == "output":
        output = res.attention.output  # a long sentence's is computed when read: once
        d_v = output.shape[1]
        labels = state.value_labels if len(state.value_labels) == d_v else None
        return DataArray(output, tokens, labels, corner=MATRIX_CORNERS[name])
    arr = {"q": res.q, "k": res.k, "v": state.v}[name]
    return DataArray(arr, tokens, None)


def _model_mixing(state: AttentionState, name: str) -> np.ndarray | None:
    """At a real model's layer without softmax attention: its proven mixing matrix for
    ``mixing``, a ``ValueError`` naming the layer's kind for S, A or O (it has none);
    None elsewhere (the head's own arrays are exported)."""
    if state.head != "model":
        return None
    from attnviz.model import real_mixing, real_model

    cap = real_model.STORE.cached(state.model_path, state.model_text)
    if cap is None or real_mixing.is_softmax_head(cap, state.layer, state.model_head):
        return None
    if real_mixing.is_softmax(cap, state.layer) and not real_mixing.beside(cap, state.layer):
        return None  # a head out of range: refused by the topic
    if name != "mixing":
        raise ValueError(real_mixing.refuse_weights(cap, state.layer, name, state.model_head))
    try:
        path, text = state.model_path, state.model_text
        return real_mixing.mixing_matrix(path, text, state.layer, state.model_head)[1]
    except real_model.ModelError as exc:
        raise ValueError(str(exc)) from None


def steps_softmax(state: AttentionState, steps: QuerySteps) -> SoftmaxRow:
    """The steps' softmax written out as the state asks: e^s, its sum and the weights,
    naive in ``softmax_dtype`` when ``naive_softmax`` is on."""
    return softmax_row(
        steps.softmax_input,
        steps.weights,
        steps.terms.sink,
        naive=state.naive_softmax,
        dtype=state.softmax_dtype,
    )


def shown_steps(state: AttentionState, steps: QuerySteps) -> QuerySteps:
    """The steps as the steps panel shows them: with ``naive_softmax`` on, step ③'s
    weights are the naive softmax's (NaN where it overflowed) and step ④ mixes the values
    with them; otherwise ``steps`` itself."""
    if not state.naive_softmax:
        return steps
    row = steps_softmax(state, steps)
    with np.errstate(invalid="ignore", over="ignore"):
        output = row.weights @ np.asarray(state.v, dtype=np.float64)
    return replace(steps, weights=row.weights, output=output)


def steps_data(workspace, name: str) -> DataArray:
    """The steps panel's row ``name`` of the query shown: raw, scaled, exp (e^s, the
    naive softmax's when it is on), weights and output (likewise)."""
    steps = shown_steps(workspace.state, workspace.resolver.results.steps)
    values = {"raw": steps.raw, "scaled": steps.scaled, "weights": steps.weights}
    if name == "exp":
        values["exp"] = steps_softmax(workspace.state, steps).exp
    if name == "output":
        return DataArray(steps.output[None, :], (steps.token,), None)
    return DataArray(values[name][None, :], (steps.token,), tuple(workspace.state.tokens))
