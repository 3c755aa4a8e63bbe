"""Generation from a workspace: the open model's next tokens with the prediction topic's
sampling and interventions, for ``attnviz generate`` and :func:`attnviz.generate`.

The model and its sentence are the attention topic's (``head`` = ``model``); temperature,
top-k, top-p, the ablated heads and the cut links are the prediction topic's, as in the
panel's Generate; ``count`` and ``seed`` are the topic's unless given. The tokens come from
:func:`attnviz.core.hf_generate.generate`; a refusal is one line
(:class:`~attnviz.model.resolve.prediction.PredictionError`).
"""

from __future__ import annotations

from collections.abc import Callable

from attnviz.model.resolve.prediction import PredictionError, _loaded, _refusing


def _model(workspace) -> tuple:
    attention = workspace.document.attention
    return attention.head, attention.model_path, attention.model_text


def generation_settings(workspace, *, count=None, seed=None) -> dict:
    """The keyword arguments :func:`~attnviz.core.hf_generate.generate` takes from the
    workspace's prediction topic (``count`` and ``seed`` override its fields; a seed < 0
    is greedy)."""
    topic = workspace.document.prediction
    seed = topic.seed if seed is None else seed
    return {
        "count": topic.count if count is None else count,
        "temperature": topic.temperature,
        "top_k": topic.top_k,
        "top_p": topic.top_p,
        "seed": None if isinstance(seed, int) and not isinstance(seed, bool) and seed < 0 else seed,
        "ablate": topic.ablate,
        "ablation": topic.ablation,
        "knockout": topic.knockout,
    }


def token_seconds(workspace) -> float:
    """About how long one generated token takes here: one prediction of the sentence with
    the interventions (it also warms what the first token reuses: its clean run)."""
    from attnviz.core import hf_predict

    head, path, text = model = _model(workspace)
    loaded = _loaded(model)
    topic = workspace.document.prediction
    kwargs = {"ablate": topic.ablate, "ablation": topic.ablation, "knockout": topic.knockout}
    pred = _refusing(hf_predict.predict, loaded, text, **kwargs)
    rows = 2 if (topic.ablate or topic.knockout) else 1
    return pred.row_seconds * rows


def generate_in(
    workspace,
    *,
    count=None,
    seed=None,
    stop=None,
    progress: Callable[[float], None] | None = None,
):
    """The open model's next tokens after its sentence (a
    :class:`~attnviz.core.hf_generate.Generated`), as the panel's Generate makes them; the
    workspace is not changed. Without a real model, or for one that cannot generate, a
    one-line :class:`PredictionError`."""
    from attnviz.core import hf_generate

    model = _model(workspace)
    loaded = _loaded(model)
    settings = generation_settings(workspace, count=count, seed=seed)
    return _refusing(
        hf_generate.generate, loaded, model[2], stop=stop, progress=progress, **settings
    )


__all__ = ["PredictionError", "generate_in", "generation_settings", "token_seconds"]
