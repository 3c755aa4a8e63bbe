"""The quoting language of lessons (no Qt): how a caption writes a number, and where it
comes from.

A caption's number is written as the documents write it (``0.9817``, ``68,719,476,736``,
``5·10⁻⁴``, ``10⁻¹⁴``, ``1/3``, ``128 KiB``; :func:`parse_number` reads it, and
:func:`portuguese_number` swaps its separators). Its source (``resources/lessons/README.md``)
names a panel's export array, a resolver's results, a field or a derived quantity, with
operations applied in order; :func:`quote_value` reads it from a workspace.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

#: Operations a quote source may apply to its value, in order.
OPS = (
    "len",
    "std",
    "mean",
    "median",
    "sum",
    "min",
    "max",
    "absmax",
    "rowsum",
    "rowmax",
    "rowrange",
    "nonzero",
    "sqrt",
    "exp",
    "log10",
    "abs",
    "mul",
    "div",
    "add",
    "pow",
)
_SUPER = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_NUMBER = re.compile(
    r"^(?P<sign>[-−]?)(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<dec>\d+))?"
    r"(?:(?:\s*[·×]\s*10(?P<sup>[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))|(?:e(?P<exp>[-+]?\d+)))?"
    r"(?:\s*[A-Za-z%]+)?$"
)


def parse_number(text: str) -> tuple[float, float] | None:
    """``(value, half a unit of the last digit)`` of an English number as captions write it.

    Reads ``0.9817``, ``68,719,476,736``, ``5·10⁻⁴``, ``2e-6``, ``1/3``, ``128 KiB``
    (a unit after the number is ignored); None for anything else.
    """
    text = text.strip()
    power = re.fullmatch(r"10([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    if power:
        exp = int(power.group(1).translate(_SUPER))
        return 10.0**exp, 0.5 * 10.0**exp
    frac = re.match(r"^(\d+)/(\d+)$", text)
    if frac:
        num, den = int(frac.group(1)), int(frac.group(2))
        return (num / den, 0.005) if den else None
    m = _NUMBER.match(text)
    if m is None:
        return None
    digits = m.group("int").replace(",", "")
    dec = m.group("dec") or ""
    value = float(f"{digits}.{dec}" if dec else digits)
    half = 0.5 * 10.0 ** -len(dec)
    exponent = m.group("exp") or (m.group("sup") or "").translate(_SUPER)
    if exponent:
        value *= 10.0 ** int(exponent)
        half *= 10.0 ** int(exponent)
    if m.group("sign"):
        value = -value
    return value, half


def portuguese_number(text: str) -> str:
    """``text`` with the English separators swapped: ``68,719,476,736`` → ``68.719.476.736``,
    ``0.9817`` → ``0,9817``."""
    return text.replace(",", "\0").replace(".", ",").replace("\0", ".")


def _finite_difference_error(workspace) -> float:
    from attnviz.model.resolve.gradient import run_check

    check = run_check(workspace.resolver_for("gradient").inputs())
    return max(float(check.dq), float(check.dk), float(check.dv))


def _attribution_fast_share(workspace) -> float:
    from attnviz.model.resolve.attribution import attribution

    return attribution(workspace).top_fast_share()


#: Named quantities a quote may cite that no results object holds.
DERIVED = {
    "finite_difference_error": _finite_difference_error,
    # The attribution panel's line: the share of the selected query's top key's score
    # terms, by size, in the fastest half of the rotary pairs.
    "attribution_fast_share": _attribution_fast_share,
}


def quote_value(workspace, source: dict) -> float:
    """The number ``source`` (a quote's ``from``) names, read from ``workspace``."""
    if "product" in source or "sum" in source:
        parts = [quote_value(workspace, part) for part in source.get("product", [])]
        value = (
            math.prod(parts)
            if parts
            else math.fsum(quote_value(workspace, part) for part in source["sum"])
        )
        return _ops(value, source.get("ops", []))
    if "panel" in source:
        from attnviz.model.panel_data import panel_data

        data = panel_data(workspace, source["panel"], source["data"])
        value = _index(np.asarray(data.values), source.get("index"), data.rows, data.columns)
    elif "resolver" in source:
        name = source["resolver"]
        res = (
            workspace.resolver.results
            if name == "attention"
            else (workspace.resolver_for(name).results)
        )
        value = _index(_path(res, source.get("path", "")), source.get("index"))
    elif "field" in source:
        value = _index(_field(workspace.document, source["field"]), source.get("index"))
    else:
        value = DERIVED[source["derived"]](workspace)
    return _ops(value, source.get("ops", []))


def _field(document, path: str):
    topic, _, field = path.partition(".")
    return document[topic].get(field)


def _path(obj, path: str):
    for part in filter(None, path.split(".")):
        if part.startswith("_"):
            raise AttributeError(f"private attribute {part!r}")
        if part.endswith("()"):
            obj = getattr(obj, part[:-2])()  # a results object's own summary, e.g. memory()
        elif isinstance(obj, Mapping):
            obj = obj[part]
        elif part.lstrip("-").isdigit() and isinstance(obj, (Sequence, np.ndarray)):
            obj = obj[int(part)]
        else:
            obj = getattr(obj, part)
    return obj


def _index(value, index, rows=None, columns=None):
    if index is None:
        return value
    labels = (rows, columns)
    keys = []
    for axis, key in enumerate(index):
        if isinstance(key, str):
            names = labels[axis] if axis < 2 else None
            if not names or key not in names:
                raise KeyError(f"no label {key!r} on axis {axis}")
            key = names.index(key)
        keys.append(key)
    return np.asarray(value)[tuple(keys)]


_UNARY = {
    "std": np.std,
    "mean": np.mean,
    "median": np.median,
    "sum": np.sum,
    "min": np.min,
    "max": np.max,
    "absmax": lambda a: np.abs(a).max(),
    "rowsum": lambda a: a.sum(axis=-1),
    "rowmax": lambda a: a.max(axis=-1),
    "rowrange": lambda a: np.ptp(a, axis=-1),
    "nonzero": np.count_nonzero,
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log10": np.log10,
    "abs": np.abs,
}
_BINARY = {"mul": np.multiply, "div": np.divide, "add": np.add, "pow": np.power}


def _ops(value, ops) -> float:
    for op in ops:
        name, arg = (op, None) if isinstance(op, str) else next(iter(op.items()))
        if name == "len":
            value = len(value)
        elif name in _BINARY:
            value = _BINARY[name](np.asarray(value, dtype=float), arg)
        else:
            value = _UNARY[name](np.asarray(value, dtype=float))
    return float(np.asarray(value, dtype=float))


# --- a quoted number as a panel's figure ------------------------------------------------
_TO_SUPER = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_FORM = re.compile(
    r"^(?P<sign>[-−]?)(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<dec>\d+))?"
    r"(?P<sci>\s*(?P<times>[·×])\s*10(?P<sup>[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))?"
    r"(?P<unit>\s*[A-Za-z%]+)?$"
)
MINUS = "\u2212"


def number_like(text: str, value: float) -> str | None:
    """``value`` written as ``text`` (an English caption's number) writes its own: as many
    decimals, thousands grouped or not, the same ``m·10ⁿ`` form, the same unit; a bare
    power (``10⁻¹⁵``, an order of magnitude) takes one significant digit, a fraction
    (``1/3``) three decimals. None for a text that is not a number or a value that is not
    finite."""
    if not math.isfinite(value):
        return None
    text = text.strip()
    if re.fullmatch(r"10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+", text):
        return _scientific(value, 0, "·")
    if re.fullmatch(r"\d+/[1-9]\d*", text):
        return _signed(f"{abs(value):.3f}", value)
    m = _FORM.match(text)
    if m is None:
        return None
    decimals = len(m.group("dec") or "")
    unit = m.group("unit") or ""
    if m.group("sci"):
        return _scientific(value, decimals, m.group("times")) + unit
    grouped = "," in m.group("int")
    body = f"{abs(value):,.{decimals}f}" if grouped else f"{abs(value):.{decimals}f}"
    return _signed(body, value) + unit


def _signed(body: str, value: float) -> str:
    return (MINUS + body) if value < 0 and body.strip("0.,") else body


def _scientific(value: float, decimals: int, times: str) -> str:
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    mantissa = round(abs(value) / 10.0**exponent, decimals)
    if mantissa >= 10:  # 9.96 → 10.0 at one decimal: one more power of ten
        exponent, mantissa = exponent + 1, mantissa / 10
    head = f"{mantissa:.{decimals}f}"
    body = (
        f"10{str(exponent).translate(_TO_SUPER)}"
        if head == "1" and decimals == 0
        else f"{head}{times}10{str(exponent).translate(_TO_SUPER)}"
    )
    return _signed(body, value)


def figure_text(
    texts: dict, lang: str, value: float, matched: bool, bound: str | None = None
) -> str:
    """What a panel's figure line says for a quoted number whose source gives ``value``
    now: the value in the quote's form (:func:`number_like`), then, when it reads otherwise
    but the quote holds (``matched``: within its tolerance, factor or bound), the quoted
    number it stands for (``0.882 ≈ 0.885``, ``2·10⁻¹⁷ ≤ 10⁻¹⁵``). A quote that no longer
    holds (the lecturer changed a field) shows the value alone; ``—`` for no value."""
    quoted = texts.get(lang, texts["en"])
    shown = number_like(texts["en"], value)
    if shown is None:
        return "—"
    if lang != "en":
        shown = portuguese_number(shown)
    if _plain(shown) == _plain(quoted) or not matched:
        return shown
    relation = {"below": "≤", "above": "≥"}.get(bound or "", "≈")
    return f"{shown} {relation} {quoted}"


def _plain(text: str) -> str:
    return text.replace(MINUS, "-").replace(" ", "").strip()


#: The panel that draws a resolver's or a topic's numbers, where it is not the same name.
_OWNER = {
    "attention": ("heatmap", "steps", "controls"),
    "steps": ("heatmap",),  # the same weights, drawn whole
    "long": ("tiles", "overview"),
}


def figure_panel(source: dict, shown: Sequence[str], on: str | None = None) -> str:
    """The panel among ``shown`` (a step's, first one largest) whose figure line says the
    number of ``source``: ``on`` when given, else the panel the number comes from (the
    panel of an export array, the panel of a resolver or of a field's topic, the gradient
    for the finite-difference check), else the step's first panel."""
    if on is not None:
        return on
    parts = source.get("product") or source.get("sum")
    if parts:
        return figure_panel(parts[0], shown)
    if "panel" in source:
        owner = source["panel"]
    elif "resolver" in source:
        owner = source["resolver"]
    elif "field" in source:
        owner = source["field"].partition(".")[0]
    else:
        owner = "gradient"
    for pid in (owner, *_OWNER.get(owner, ())):
        if pid in shown:
            return pid
    return shown[0]
