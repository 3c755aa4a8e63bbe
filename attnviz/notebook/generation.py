"""``attnviz.generate()``: a local decoder's next tokens, in a notebook or a script.

::

    import attnviz
    out = attnviz.generate(model="path/to/decoder", text="The capital of France is", count=5)
    out.text, out.tokens, out.probs

The workspace is built as :func:`attnviz.figure` builds it (preset, session, model/text,
then each ``set`` field); the prediction topic's sampling and interventions apply, as in
the prediction panel's Generate (:mod:`attnviz.model.generation`).
"""

from __future__ import annotations

from attnviz.model.topics.prediction import MAX_COUNT, MAX_SEED
from attnviz.notebook import checks
from attnviz.notebook.errors import FigureError
from attnviz.notebook.options import build


def generate(
    model=None,
    text: str | None = None,
    *,
    count: int | None = None,
    seed: int | None = None,
    preset: str | None = None,
    session=None,
    set=None,
):
    """Append ``count`` tokens to ``text`` with ``model``'s own predictions.

    Parameters
    ----------
    model : str or os.PathLike, optional
        A local Hugging Face decoder folder (or a masked-LM's: refused, it fills a [MASK]),
        or ``"builtin:induction"``, the shipped model with induction heads.
    text : str, optional
        The sentence to continue (default: the attention topic's ``model_text``).
    count : int, optional
        Tokens to append, 1 to 256 (default ``prediction.count``); generation stops
        earlier at the model's end of sequence.
    seed : int, optional
        Sample with this seed (numpy's Generator over the sampling distribution: the same
        tokens for the same seed); −1 greedy (default ``prediction.seed``).
    preset, session, set
        As :func:`attnviz.figure`: e.g. ``set={"prediction.temperature": 0.7,
        "prediction.ablate": [[1, 2]]}``.

    Returns
    -------
    attnviz.core.hf_generate.Generated
        ``ids``, ``tokens``, ``text`` (the sentence with them), ``probs`` (each token's
        probability when chosen), ``stopped``, ``ended``.

    Raises
    ------
    FigureError
        A bad argument, no model, or a model that cannot generate: one line.
    """
    from attnviz.model.generation import PredictionError, generate_in

    if count is not None:
        count = checks.whole_number("count", count, 1, MAX_COUNT)
    if seed is not None:
        seed = checks.whole_number("seed", seed, -1, MAX_SEED)
    workspace = build(preset=preset, session=session, model=model, text=text, set=set)
    try:
        return generate_in(workspace, count=count, seed=seed)
    except PredictionError as exc:
        raise FigureError(str(exc)) from None
