"""The ``long`` topic: a long sequence's attention as a map, its zoom, FlashAttention's tiles.

Two panels read it. The overview panel shows the ``bins × bins`` map of the exact n×n
weights of a synthetic head (``n`` up to 262,144 tokens, computed on ``backend`` without
ever holding the n×n matrix) and, inside the zoom window ``rows × cols``, the exact
weights. The tiles panel runs FlashAttention's online softmax on a small sequence of
``tiles_n`` tokens, ``block_q × block_k`` tiles at a time, and shows step ``tile_step``.

The zoom window and the tile step are selections (browsing, not undo steps); an empty
window means the whole sequence.
"""

from __future__ import annotations

from attnviz.model.fields import Field, StateError
from attnviz.model.i18n import QT_TRANSLATE_NOOP
from attnviz.model.topic import Topic

#: The lesson's model: 262,144 tokens of context.
MAX_N = 1 << 18
MIN_N = 64
MAX_D_K = 512
MAX_BINS = 1024
MAX_SEED = 2**31 - 1
HEADS = ("content", "previous", "decay", "random", "model")
#: A real model's sentence is at most this long (its zoom windows may reach past ``n``).
MAX_MODEL_N = 8192
BACKENDS = ("numpy", "torch", "cuda", "auto")
DTYPES = ("float32", "float64", "bfloat16", "float16")
HALF = ("bfloat16", "float16")
#: The tiles demo: a sequence small enough to print, blocks of 4–16 rows or keys.
MAX_TILES_N = 64
MIN_BLOCK, MAX_BLOCK = 4, 16
MAX_TILES_D = 16

FIELDS = (
    Field(
        "n",
        "int",
        4096,
        MIN_N,
        MAX_N,
        doc="tokens of the long sequence",
        label=QT_TRANSLATE_NOOP("UndoController", "Sequence length"),
    ),
    Field(
        "d_k",
        "int",
        64,
        2,
        MAX_D_K,
        doc="width of queries and keys",
        label=QT_TRANSLATE_NOOP("UndoController", "d_k"),
    ),
    Field(
        "head",
        "choice",
        "content",
        choices=HEADS,
        doc="synthetic head: content (equal tokens), previous token, distance decay, random;"
        " model: the real model's head the heatmap shows (its sentence sets n; the tiles"
        " demo keeps the content head)",
        label=QT_TRANSLATE_NOOP("UndoController", "Head"),
    ),
    Field(
        "seed",
        "int",
        0,
        0,
        MAX_SEED,
        doc="seed of the synthetic head",
        label=QT_TRANSLATE_NOOP("UndoController", "Seed"),
    ),
    Field(
        "bins",
        "int",
        256,
        1,
        MAX_BINS,
        doc="cells per side of the map (at most n)",
        label=QT_TRANSLATE_NOOP("UndoController", "Map cells"),
    ),
    Field(
        "reduce",
        "choice",
        "mean",
        choices=("mean", "max"),
        doc="a map cell is the mean or the max of the weights it covers",
        label=QT_TRANSLATE_NOOP("UndoController", "Map cell value"),
    ),
    Field(
        "causal",
        "bool",
        False,
        doc="causal mask: a query sees only earlier keys",
        label=QT_TRANSLATE_NOOP("UndoController", "Causal mask"),
    ),
    Field(
        "scale",
        "bool",
        True,
        doc="divide the scores by √d_k",
        label=QT_TRANSLATE_NOOP("UndoController", "Scale by √d_k"),
    ),
    Field(
        "backend",
        "choice",
        "numpy",
        choices=BACKENDS,
        doc="where the map is computed (auto: CUDA when present, else NumPy)",
        label=QT_TRANSLATE_NOOP("UndoController", "Backend"),
    ),
    Field(
        "dtype",
        "choice",
        "float32",
        choices=DTYPES,
        doc="precision of q and k (bfloat16/float16: CUDA only)",
        label=QT_TRANSLATE_NOOP("UndoController", "Precision"),
    ),
    Field(
        "rows",
        "ints",
        (),
        0,
        MAX_N,
        max_len=2,
        browse=True,
        doc="zoom window: query rows [start, stop) ([] = all)",
        label=QT_TRANSLATE_NOOP("UndoController", "Zoomed rows"),
    ),
    Field(
        "cols",
        "ints",
        (),
        0,
        MAX_N,
        max_len=2,
        browse=True,
        doc="zoom window: keys [start, stop) ([] = all)",
        label=QT_TRANSLATE_NOOP("UndoController", "Zoomed columns"),
    ),
    Field(
        "log_color",
        "bool",
        True,
        recompute=False,
        doc="colour the map by log10 of the weight (small weights stay visible)",
        label=QT_TRANSLATE_NOOP("UndoController", "Log colour scale"),
    ),
    Field(
        "tiles_n",
        "int",
        16,
        MIN_BLOCK,
        MAX_TILES_N,
        doc="tokens of the tiles demo",
        label=QT_TRANSLATE_NOOP("UndoController", "Tiles: tokens"),
    ),
    Field(
        "tiles_d",
        "int",
        4,
        2,
        MAX_TILES_D,
        doc="width of q, k and v in the tiles demo",
        label=QT_TRANSLATE_NOOP("UndoController", "Tiles: width"),
    ),
    Field(
        "block_q",
        "int",
        4,
        MIN_BLOCK,
        MAX_BLOCK,
        doc="query rows of one tile",
        label=QT_TRANSLATE_NOOP("UndoController", "Query tile size"),
    ),
    Field(
        "block_k",
        "int",
        4,
        MIN_BLOCK,
        MAX_BLOCK,
        doc="keys (and values) of one tile",
        label=QT_TRANSLATE_NOOP("UndoController", "Key tile size"),
    ),
    Field(
        "tile_step",
        "int",
        0,
        0,
        (MAX_TILES_N // MIN_BLOCK) ** 2 - 1,
        browse=True,
        doc="the tile shown (row blocks in order, keys left to right)",
        label=QT_TRANSLATE_NOOP("UndoController", "Tiles: step"),
    ),
)


def tile_count(tiles_n: int, block_q: int, block_k: int) -> int:
    """Tiles of the demo: row blocks × key blocks (causally skipped ones included)."""
    return -(-tiles_n // block_q) * -(-tiles_n // block_k)


def window(span: tuple, n: int) -> tuple[int, int]:
    """The ``[start, stop)`` of a zoom field, ``(0, n)`` when it is empty."""
    return (int(span[0]), int(span[1])) if span else (0, n)


class LongState(Topic):
    """A long synthetic head, its overview map and zoom, and the small tiles demo."""

    NAME = "long"
    ORDER = 60
    FIELDS = FIELDS

    def _follow(self, new: dict, old: dict, given: set[str]) -> None:
        # A shorter sequence takes the map's resolution and the zoom window with it; values
        # given together with n are judged as they are by _check.
        if "n" in given and new["n"] != old["n"]:
            if "bins" not in given:
                new["bins"] = min(new["bins"], new["n"])
            for name in ("rows", "cols"):
                if name not in given and new[name] and new[name][1] > new["n"]:
                    new[name] = ()
        if "backend" in given and "dtype" not in given:
            on_gpu = new["backend"] == "cuda"
            if (new["dtype"] in HALF) != on_gpu and new["dtype"] != "float32":
                new["dtype"] = "float32"
        if given & {"tiles_n", "block_q", "block_k"} and "tile_step" not in given:
            last = tile_count(new["tiles_n"], new["block_q"], new["block_k"]) - 1
            new["tile_step"] = min(new["tile_step"], last)

    def _check(self, v: dict, old: dict) -> None:
        n = v["n"]
        if v["head"] == "model":
            # The sentence sets the length: the resolver bounds the map and the zoom by it.
            n = max(n, MAX_MODEL_N)
        if v["bins"] > n:
            raise StateError(f"bins ({v['bins']}) must be at most n ({n})")
        for name in ("rows", "cols"):
            span = v[name]
            if len(span) == 1:
                raise StateError(f"{name} must be [] or [start, stop]")
            if span and not 0 <= span[0] < span[1] <= n:
                raise StateError(
                    f"{name} must satisfy 0 ≤ start < stop ≤ n ({n}), got {list(span)}"
                )
        if v["dtype"] in HALF and v["backend"] != "cuda":
            raise StateError(f"dtype {v['dtype']} runs on the cuda backend only")
        if v["dtype"] == "float64" and v["backend"] == "cuda":
            raise StateError("the cuda backend runs float32, bfloat16 or float16, not float64")
        last = tile_count(v["tiles_n"], v["block_q"], v["block_k"]) - 1
        if v["tile_step"] > last:
            raise StateError(
                f"tile_step must be at most {last} (the last tile), got {v['tile_step']}"
            )
