"""A sweep's overview maps: how long they take, said before any is computed, and which
map each frame draws.

An animation of the ``overview`` panel computes a map for each distinct set of the fields
a map depends on (:data:`attnviz.model.resolve.long.OVERVIEW_FIELDS`); one of 32,768 tokens
takes seconds, one of 262,144 minutes. :func:`overview_work` estimates them all from the
document's fields before any is computed: ``attnviz export --animate`` says it (and
refuses past :data:`LONG_WORK_S` without ``--yes``), File → Export Animation… asks past
:data:`SAY_WORK_S`. :func:`frame_overviews` tells, frame by frame, what the long resolver
will map, so that the app can compute each map on a worker before the frame is drawn.
Nothing here imports Qt.
"""

from __future__ import annotations

from typing import NamedTuple

#: Work estimated past this many seconds is said (or asked about) before it starts; past
#: LONG_WORK_S a command needs --yes.
SAY_WORK_S = 10.0
LONG_WORK_S = 60.0


class OverviewWork(NamedTuple):
    """The overview maps of a sweep, estimated before any is computed.

    ``maps`` holds the long topic's fields of each distinct map, in the order of the
    frames that first draw it; ``seconds`` their time on this machine's CPU (a map on a
    GPU backend, which is not timed, counts 0). A named tuple, not a dataclass: the
    commands import this module at start-up (for SAY_WORK_S), before dataclasses is needed.
    """

    maps: tuple[dict, ...]
    seconds: float


def overview_work(document, frame_values: list[dict]) -> OverviewWork:
    """The overview maps an animation of ``frame_values`` over ``document`` computes.

    Parameters
    ----------
    document : Document
        The state the frames start from (only its ``long`` fields are read).
    frame_values : list of dict
        ``{"topic.field": value}`` per frame (:func:`attnviz.model.sweep.sweep_values`).

    Returns
    -------
    OverviewWork
        One entry per distinct :func:`~attnviz.model.resolve.long.overview_key` and the
        sum of their :func:`~attnviz.model.resolve.long.overview_seconds`.
    """
    # Imported here: the commands read SAY_WORK_S at start-up, before numpy is needed.
    from attnviz.model.resolve.long import overview_key, overview_seconds

    base = document["long"].snapshot()
    maps: dict[tuple, dict] = {}
    for values in frame_values:
        fields = dict(base)
        fields.update({p.partition(".")[2]: v for p, v in values.items() if p.startswith("long.")})
        maps.setdefault(overview_key(fields), fields)
    seconds = [overview_seconds(fields) for fields in maps.values()]
    return OverviewWork(tuple(maps.values()), float(sum(s for s in seconds if s is not None)))


def frame_overviews(workspace, frame_values: list[dict]) -> list:
    """The long resolver's results for each frame: ``key``, ``values`` and ``source`` say
    which map the frame draws and what computes it
    (:func:`~attnviz.model.resolve.long.run_overview`).

    Each frame's fields are set on top of the workspace's state, as the frames are drawn
    (a real model's head makes its own ``n``); the state is put back afterwards.
    StateError for a frame the document refuses.
    """
    document = workspace.document
    resolver = workspace.resolver_for("long")
    topics = {path.partition(".")[0] for values in frame_values for path in values}
    base = {name: document[name].snapshot() for name in topics}
    out = []
    try:
        for values in frame_values:
            document.restore(base)
            document.set_fields(values)
            out.append(resolver.results)
    finally:
        document.restore(base)
    return out
