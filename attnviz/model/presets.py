"""Presets: the documents' worked examples as data files in ``resources/presets``.

One function, :func:`load_preset`, turns a preset file into arrays ready for the core.
A preset gives Q, K and V explicitly (rows of numbers, or ``{"fill": x, "length": d}``
for a constant row), by a seeded draw (``"random"``), by a synthetic head
(``"head": {"kind": ..., "seed": ...}`` with ``"d_k"``), or as learned projections of
token embeddings (``"projections": {"d_model": ..., "n_heads": ..., "n_kv_heads": ...,
"seed": ...}``, optionally ``"d_head"``, ``"head_index"`` and typed ``"x"``, ``"w_q"``,
``"w_k"``, ``"w_v"``, ``"w_o"``; the others are drawn from the seed). ``"rope": true``
turns RoPE on over the whole head (a head built for its clock hands).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import cache

import numpy as np

from attnviz.core.heads import generate_head, seeded_projection
from attnviz.core.multihead import project_head, projection_shape
from attnviz.model.safe_io import FileRefused, read_text_limited
from attnviz.model.topic import values_equal
from attnviz.model.topics.display import DisplayState
from attnviz.paths import ResourceError, resource

_FORMAT = 1
_TOKEN_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Split on whitespace and punctuation: words stay whole, each punctuation mark is a token."""
    return _TOKEN_RE.findall(text)


@dataclass(frozen=True)
class Experiment:
    """A one-click edit a preset suggests (e.g. give "praça" another value)."""

    id: str
    title: str
    edit: dict


@dataclass(frozen=True)
class Preset:
    """A worked example: tokens, Q/K/V and the settings to view them with."""

    id: str
    title: str
    source: str
    tokens: list[str]
    q: np.ndarray
    k: np.ndarray
    v: np.ndarray
    scale: bool = True
    temperature: float = 1.0
    selected_query: int = 0
    masks: dict = field(default_factory=dict)
    head: dict | None = None
    value_labels: list[str] | None = None
    d_output: np.ndarray | None = None
    #: ``display.decimals`` the document writes its numbers with (0: automatic).
    decimals: int = 0
    experiments: tuple[Experiment, ...] = ()
    extra: dict = field(default_factory=dict)
    projections: dict | None = None
    #: ``attention.rope`` the preset needs (a head built for RoPE's clock hands, all its
    #: dimensions turned); None: the preset leaves RoPE as it is.
    rope: bool | None = None

    @property
    def d_k(self) -> int:
        """Width of the queries and keys."""
        return int(self.q.shape[-1])

    def with_experiment(self, experiment_id: str) -> Preset:
        """Return a copy of this preset with one of its experiments applied."""
        exp = next((e for e in self.experiments if e.id == experiment_id), None)
        if exp is None:
            known = ", ".join(e.id for e in self.experiments) or "none"
            raise ValueError(
                f"preset {self.id!r} has no experiment {experiment_id!r} (known: {known})"
            )
        arrays = {"q": self.q.copy(), "k": self.k.copy(), "v": self.v.copy()}
        for name, rows in exp.edit.items():
            for row, values in rows.items():
                arrays[name][int(row)] = values
        return replace(self, **arrays)


def _row(entry) -> list[float]:
    if isinstance(entry, dict):
        return [float(entry["fill"])] * int(entry["length"])
    return [float(x) for x in entry]


def _matrix(rows, name: str) -> np.ndarray:
    arr = np.array([_row(r) for r in rows], dtype=np.float64)
    if arr.ndim != 2:
        raise ValueError(f"preset field {name!r} must be a list of equal-length rows")
    return arr


@cache
def preset_ids() -> tuple[str, ...]:
    """The ids of every shipped preset, sorted."""
    return tuple(sorted(p.stem for p in resource("presets").glob("*.json")))


def load_preset(preset_id: str) -> Preset:
    """Load the preset ``preset_id`` (see :func:`preset_ids`) into arrays.

    Raises ``ValueError`` for an unknown id or a malformed file.
    """
    if preset_id not in preset_ids():
        raise ValueError(f"unknown preset {preset_id!r}; known: {', '.join(preset_ids())}")
    return preset_from_dict(read_preset_file(resource("presets", f"{preset_id}.json")))


def preset_title(preset_id: str) -> str:
    """The title of preset ``preset_id`` as its file gives it, without building the preset
    (a long sentence's vectors, a synthetic head): what a list of presets shows.

    Raises ``ValueError`` for an unknown id or a file that is not a preset.
    """
    if preset_id not in preset_ids():
        raise ValueError(f"unknown preset {preset_id!r}; known: {', '.join(preset_ids())}")
    data = read_preset_file(resource("presets", f"{preset_id}.json"))
    if data.get("format") != _FORMAT:
        raise ValueError(
            f"preset format {data.get('format')!r} is not supported (expected {_FORMAT})"
        )
    title = data.get("title", data.get("id", preset_id))
    if not isinstance(title, str):
        raise ValueError(f"preset {preset_id!r}: its title must be text")
    return title


def check_resources() -> None:
    """Read every shipped preset file (the sentence presets and each topic's) and model
    card once, bounded; :class:`~attnviz.paths.ResourceError` names the first that cannot
    be read. The window calls it before it opens: a broken installation is one line then,
    not an error at every panel that shows a preset."""
    from attnviz.core.kvcache import model_cards  # only the window asks

    folder = resource("presets")
    for path in sorted(folder.glob("*.json")) + sorted(folder.glob("*/*.json")):
        read_preset_file(path)
    model_cards()


#: Largest preset file (the shipped ones are a few kilobytes).
MAX_PRESET_BYTES = 1 << 20


def read_preset_file(path) -> dict:
    """The JSON object of a preset file; ``ValueError`` in one line for anything else (a
    FIFO or device in a resources folder of ``ATTNVIZ_RESOURCES``, a link to /dev/zero, a
    huge or broken file) — never a hang or an unbounded read."""
    try:
        data = json.loads(read_text_limited(path, MAX_PRESET_BYTES, "a preset"))
    except FileRefused as exc:
        raise ResourceError(str(exc)) from None
    except (ValueError, RecursionError) as exc:
        raise ResourceError(f"preset file {path.name}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ResourceError(f"preset file {path.name}: must hold a JSON object")
    return data


def preset_from_dict(data: dict) -> Preset:
    """Build a :class:`Preset` from its JSON form (see the module docstring)."""
    if data.get("format") != _FORMAT:
        raise ValueError(
            f"preset format {data.get('format')!r} is not supported (expected {_FORMAT})"
        )
    tokens = list(data["tokens"]) if "tokens" in data else tokenize(data["text"])
    d_output = None
    projections = None
    if "random" in data:
        spec = data["random"]
        rng = np.random.default_rng(spec["seed"])
        drawn = {name: rng.normal(size=tuple(spec["shape"])) for name in spec["draws"]}
        q, k, v = drawn["q"], drawn["k"], drawn["v"]
        d_output = drawn.get("d_output")
    elif "projections" in data:
        projections = _projections(data["projections"], tokens, data["id"])
        q, k, v = _projected_head(projections, tokens)
    elif "head" in data:
        h = generate_head(
            data["head"]["kind"],
            len(tokens),
            int(data["d_k"]),
            seed=int(data["head"].get("seed", 0)),
            tokens=tokens,
        )
        q, k, v = h.q, h.k, h.v
    else:
        q, k, v = (_matrix(data[name], name) for name in ("q", "k", "v"))
    for name, arr in (("q", q), ("k", k), ("v", v)):
        if arr.shape[0] != len(tokens):
            raise ValueError(
                f"preset {data['id']!r}: {name} has {arr.shape[0]} rows for {len(tokens)} tokens"
            )
    known = {
        "format",
        "id",
        "title",
        "source",
        "tokens",
        "text",
        "q",
        "k",
        "v",
        "random",
        "head",
        "d_k",
        "scale",
        "temperature",
        "selected_query",
        "masks",
        "value_labels",
        "experiments",
        "projections",
        "decimals",
        "rope",
    }
    return Preset(
        id=data["id"],
        title=data.get("title", data["id"]),
        source=data.get("source", ""),
        tokens=tokens,
        q=q,
        k=k,
        v=v,
        scale=bool(data.get("scale", True)),
        temperature=float(data.get("temperature", 1.0)),
        selected_query=int(data.get("selected_query", 0)),
        masks=dict(data.get("masks", {})),
        head=data.get("head"),
        value_labels=data.get("value_labels"),
        d_output=d_output,
        decimals=_decimals(data.get("decimals", 0), data["id"]),
        experiments=tuple(
            Experiment(e["id"], e["title"], e["edit"]) for e in data.get("experiments", [])
        ),
        extra={key: val for key, val in data.items() if key not in known},
        projections=projections,
        rope=None if data.get("rope") is None else bool(data["rope"]),
    )


def _decimals(value, preset_id: str) -> int:
    """A preset's ``decimals``: 0 (automatic) or 2–6, as the display topic takes them."""
    try:
        return DisplayState(decimals=value).decimals
    except ValueError as exc:
        raise ValueError(f"preset {preset_id!r}: {exc}") from None


#: The matrices a projections preset may type (the others are drawn from its seed).
_MATS = ("x", "w_q", "w_k", "w_v", "w_o")
#: The attention topic's projection layout fields (a preset without them resets them).
_LAYOUT = ("d_model", "n_heads", "n_kv_heads", "head_index")


def _projections(spec: dict, tokens: list[str], preset_id: str) -> dict:
    """The projections of a preset: layout, seed and typed matrices (None: seeded)."""
    out = {
        "d_model": int(spec["d_model"]),
        "n_heads": int(spec["n_heads"]),
        "n_kv_heads": int(spec.get("n_kv_heads", spec["n_heads"])),
        "seed": int(spec.get("seed", 0)),
        "head_index": int(spec.get("head_index", 0)),
    }
    out["d_head"] = int(spec.get("d_head", max(1, out["d_model"] // out["n_heads"])))
    for name in _MATS:
        arr = _matrix(spec[name], name) if name in spec else None
        shape = projection_shape(
            name, len(tokens), out["d_model"], out["n_heads"], out["n_kv_heads"], out["d_head"]
        )
        if arr is not None and arr.shape != shape:
            raise ValueError(f"preset {preset_id!r}: {name} must be {shape}, got {arr.shape}")
        out[name] = arr
    return out


def projection_arrays(projections: dict, tokens) -> dict[str, np.ndarray]:
    """X and the W matrices of a preset's projections (typed, or drawn from its seed)."""
    p = projections
    return {
        name: p[name]
        if p[name] is not None
        else seeded_projection(
            name,
            tuple(tokens),
            p["d_model"],
            p["n_heads"],
            p["n_kv_heads"],
            p["d_head"],
            p["seed"],
        )
        for name in _MATS
    }


def _projected_head(projections: dict, tokens) -> tuple[np.ndarray, ...]:
    m = projection_arrays(projections, tokens)
    return project_head(
        m["x"],
        m["w_q"],
        m["w_k"],
        m["w_v"],
        projections["head_index"],
        n_heads=projections["n_heads"],
        n_kv_heads=projections["n_kv_heads"],
    )


def preset_state_values(p: Preset) -> dict:
    """The :class:`~attnviz.model.state.AttentionState` fields that show preset ``p``.

    Every mask and selection is reset, so applying a preset always gives the same view.
    """
    n = len(p.tokens)
    masks = p.masks
    values = {
        "tokens": tuple(p.tokens),
        "head": p.head["kind"] if p.head else "manual",
        "seed": int(p.head.get("seed", 0)) if p.head else 0,
        "d_k": p.d_k,
        "q": p.q,
        "k": p.k,
        "v": p.v,
        "scale": p.scale,
        "temperature": p.temperature,
        "causal": bool(masks.get("causal", False)),
        "padding": tuple(bool(x) for x in masks.get("padding", [True] * n)),
        "segments": tuple(int(x) for x in masks.get("segments", [0] * n)),
        "window": int(masks.get("window", 0)),
        "window_causal": bool(masks.get("window_causal", True)),
        "selected_query": p.selected_query,
        "selected_cell": None,
        "value_labels": tuple(p.value_labels or ()),
        "preset_id": p.id,
        "d_output": p.d_output,
        "grad_source": "preset" if p.d_output is not None else "onehot",
        "grad_dim": 0,
        "heads_off": (),
        **_layout_defaults(),
        **dict.fromkeys(_MATS),
    }
    if p.rope is not None:
        values |= {"rope": p.rope, "rope_dims": 0}
    if p.projections is not None:
        # Q, K and V come from X and W: the topic derives them (and regenerates them).
        proj = p.projections
        for name in ("q", "k", "v"):
            del values[name]
        values["head"] = "projections"
        values["seed"] = proj["seed"]
        values.update({key: proj[key] for key in (*_LAYOUT, *_MATS)})
    return values


#: The fields a preset's title describes: while they hold the preset's values, its title
#: still tells the truth (a colormap, the matrix shown or a selection do not change it).
SCENARIO_FIELDS = (
    "tokens", "head", "seed", "d_k", "q", "k", "v", "scale", "temperature", "causal",
    "padding", "segments", "window", "window_causal", "x", "w_q", "w_k", "w_v", "w_o",
    "d_model", "n_heads", "n_kv_heads", "head_index", "heads_off", "rope", "rope_dims",
)  # fmt: skip


def shows_preset(p: Preset, values: dict) -> bool:
    """True while ``values`` (an attention topic's fields) still show preset ``p``'s
    scenario: every field of :data:`SCENARIO_FIELDS` the preset sets has its value."""
    want = preset_state_values(p)
    return all(
        values_equal(values.get(name), want[name]) for name in SCENARIO_FIELDS if name in want
    )


def _layout_defaults() -> dict:
    from attnviz.model.topics.attention import AttentionState

    return {name: AttentionState.field(name).default for name in _LAYOUT}
