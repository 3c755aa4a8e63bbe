"""Lessons as data: every shipped lesson plays, sets its fields and quotes what the panels
compute; every figure of GUIDE.md is on screen in some step; broken files are refused."""

from __future__ import annotations

import copy
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attnviz.commands.export import panel_ids
from attnviz.model.document import Document
from attnviz.model.lesson_check import play_step, step_snapshot, verify_lesson
from attnviz.model.lessons import (
    ID_RE,
    LessonError,
    Quote,
    lesson_by_id,
    lesson_from_dict,
    lesson_paths,
    load_lesson,
    parse_number,
    portuguese_number,
    shipped_lessons,
)
from attnviz.model.workspace import Workspace

PANELS = panel_ids()
LESSONS = shipped_lessons(PANELS)
#: One lesson for the √d_k lesson (000), one per section of the chapter (003), one for 004.
SECTIONS = {
    "sqrt-dk": "000", "reach": "003", "embeddings": "003", "hand-worked": "003",
    "matrix": "003", "backward": "003", "masks": "003", "positions": "003",
    "multi-head": "003", "kv-cache": "003", "n-squared": "003", "blog": "004",
}  # fmt: skip

#: Every figure of ../shared/seeds/GUIDE.md: (the figure, lesson, step (1-based), the text
#: the English caption shows, whether that text is a quote checked against the panels).
GUIDE_FIGURES = [
    ("softmax([8, 4, 0]) first", "sqrt-dk", 1, "0.9817", True),
    ("softmax([8, 4, 0]) second", "sqrt-dk", 1, "0.0180", True),
    ("softmax([8, 4, 0]) third", "sqrt-dk", 1, "0.0003", True),
    ("inflated scores 8", "sqrt-dk", 1, "8", True),
    ("d_k = 256", "sqrt-dk", 1, "256", True),
    ("about 98% on the first key", "sqrt-dk", 2, "98", True),
    ("sqrt(256) = 16", "sqrt-dk", 3, "16", True),
    ("softmax([0.5, 0.25, 0]) 0.419", "sqrt-dk", 3, "0.419", True),
    ("softmax([0.5, 0.25, 0]) 0.326", "sqrt-dk", 3, "0.326", True),
    ("softmax([0.5, 0.25, 0]) 0.254", "sqrt-dk", 3, "0.254", True),
    ("T = sqrt(d_k)", "sqrt-dk", 4, "T = √d_k", False),
    ("max-subtraction is a separate fix", "sqrt-dk", 5, "both needed", False),
    ("without max-subtraction float16 overflows", "sqrt-dk", 6, "16", True),
    ("262,144 tokens", "sqrt-dk", 7, "262,144", True),
    ("262,144² pairs", "sqrt-dk", 7, "68,719,476,736", True),
    ("~69 billion", "sqrt-dk", 7, "69", True),
    ("24 query heads", "sqrt-dk", 7, "24", True),
    ("16 of 64 layers full attention", "sqrt-dk", 7, "64", True),
    ("48 linear-attention layers", "sqrt-dk", 7, "48", True),
    ("per-step factor 0.885 (RNN)", "reach", 1, "0.885", True),
    ("per-step factor 0.95 (LSTM)", "reach", 1, "0.95", True),
    ("RNN at 64 tokens 5e-4", "reach", 2, "5·10⁻⁴", True),
    ("LSTM at 64 tokens 4e-2", "reach", 2, "4·10⁻²", True),
    ("0.9^64 ≈ 1e-3", "reach", 2, "0.9⁶⁴ ≈ 10⁻³", False),
    ("RNN at 256 tokens 1e-14", "reach", 3, "10⁻¹⁴", True),
    ("LSTM at 256 tokens 2e-6", "reach", 3, "2·10⁻⁶", True),
    ("attention reaches any token in one step", "reach", 4, "1", True),
    ("128k rows", "embeddings", 1, "128,000", True),
    ("4096 columns", "embeddings", 1, "4,096", True),
    ("≈ 525 million parameters", "embeddings", 1, "525", True),
    ("gradient touches only the rows present", "embeddings", 2, "3,784", True),
    ("tying saves half", "embeddings", 4, "524,288,000", True),
    ("q of banco = [1, 2], d_k = 2", "hand-worked", 2, "q = [1, 2]", False),
    ("scores [1, 3, 4]", "hand-worked", 2, "4", True),
    ("scaled 0.71", "hand-worked", 3, "0.71", True),
    ("scaled 2.12", "hand-worked", 3, "2.12", True),
    ("scaled 2.83", "hand-worked", 3, "2.83", True),
    ("weights 0.07", "hand-worked", 4, "0.07", True),
    ("weights 0.31", "hand-worked", 4, "0.31", True),
    ("weights 0.62", "hand-worked", 4, "0.62", True),
    ("output 0.85", "hand-worked", 5, "0.85", True),
    ("output 0.15", "hand-worked", 5, "0.15", True),
    ("A row 1 [0.45 0.45 0.11]", "hand-worked", 6, "0.11", True),
    ("A row 3 [0.14 0.28 0.58]", "hand-worked", 6, "0.58", True),
    ("O row 1 [0.78 0.22]", "hand-worked", 6, "0.78", True),
    ("O row 3 [0.86 0.14]", "hand-worked", 6, "0.86", True),
    ("praça = [0, 1] → [0.23, 0.77]", "hand-worked", 7, "0.77", True),
    ("query [1, 0] → [0.40, 0.40, 0.20]", "hand-worked", 8, "0.40", True),
    ("zero query → uniform 1/3", "hand-worked", 9, "1/3", True),
    ("shapes table: S and A n × n", "hand-worked", 11, "are n × n", False),
    ("content-matching head", "matrix", 1, "content head", False),
    ("previous-token head", "matrix", 2, "previous-token head", False),
    ("distance-decay head", "matrix", 3, "distance-decay head", False),
    ("divisor off, d_k up: binary", "matrix", 4, "1.00", True),
    ("log the attention entropy", "matrix", 4, "0.59", True),
    ("d_k = 128: score std ≈ 11", "matrix", 5, "11", True),
    ("scores differing by 20", "matrix", 5, "20", True),
    ("e^-20 ≈ 2e-9", "matrix", 7, "2·10⁻⁹", True),
    ("reference A row 1 0.226 0.475 0.298", "backward", 1, "0.475", True),
    ("reference A row 2 0.144 0.598 0.259", "backward", 1, "0.598", True),
    ("reference A row 3 0.668 0.235 0.097", "backward", 1, "0.097", True),
    ("dQ first row 0.456", "backward", 2, "0.456", True),
    ("dQ first row 0.209", "backward", 2, "0.209", True),
    ("every row of dS sums to zero", "backward", 3, "10⁻¹⁵", True),
    ("finite differences ~1e-10", "backward", 4, "10⁻¹⁰", True),
    ("saturated row: null gradient", "backward", 5, "10⁻²⁰", True),
    ("mask −inf before the softmax", "masks", 1, "−∞", False),
    ("o gato subiu no telhado: four examples", "masks", 2, "4", True),
    ("padding mask", "masks", 4, "0.574", True),
    ("document mask when packing", "masks", 5, "1.000", True),
    ("permutation-equivariant", "positions", 2, "0.295", True),
    ("q_m·k_n depends only on m − n", "positions", 6, "7.07", True),
    ("position interpolation, NTK, YaRN", "positions", 7, "YaRN", False),
    ("YaRN attention factor", "positions", 7, "1.1386", True),
    ("d = 4096", "multi-head", 3, "4096", True),
    ("h = 32", "multi-head", 3, "32", True),
    ("128 dims per head", "multi-head", 3, "128", True),
    ("h heads of width d/h cost the same", "multi-head", 2, "430,080", True),
    ("softmax of the hand-worked row: e^s sum 27.3", "hand-worked", 4, "27.3", True),
    ("430,080 FLOPs are 215,040 multiply-adds", "multi-head", 2, "215,040", True),
    ("131,072 bytes per token", "kv-cache", 1, "131,072", True),
    ("128 KiB per token", "kv-cache", 1, "128 KiB", True),
    ("16 GiB at 128k tokens", "kv-cache", 2, "16 GiB", True),
    ("MHA 4x larger", "kv-cache", 3, "4", True),
    ("MHA → GQA → MQA → MLA", "kv-cache", 4, "MHA → GQA → MQA → MLA", False),
    ("S at 128k: 1.7e10 entries", "n-squared", 1, "1.7·10¹⁰", True),
    ("34 GB in 16-bit", "n-squared", 1, "34.36 GB", True),
    ("FlashAttention never materializes S", "n-squared", 2, "88", True),
    ("sliding windows", "n-squared", 4, "4", True),
    ("hybrids", "n-squared", 5, "16", True),
    ("Q1 = [1, 0] · K2 = [0, 1] = 0", "blog", 1, "0", True),
    ("a score of 0 still takes a weight", "blog", 2, "0.33", True),
    ("without the divisor: one-hot", "blog", 4, "1.00", True),
    ("W^O writes one summary", "blog", 5, "W^O", False),
    ("masking strategies swappable", "blog", 6, "swappable", False),
    ("checklist: √d_k for unstable training", "blog", 7, "√d_k", False),
]


def test_every_section_has_a_lesson_with_a_valid_id():
    ids = [lesson.id for lesson in LESSONS]
    assert len(ids) >= 12 and len(set(ids)) == len(ids)
    assert set(SECTIONS) <= set(ids)
    for lesson in LESSONS:
        assert ID_RE.match(lesson.id) and lesson.id[0].isalpha() and lesson.id.islower()
        assert lesson.source.startswith(SECTIONS.get(lesson.id, ""))
    documents = [i for i in ids if i in SECTIONS]  # a lesson of our own may follow them
    assert documents[0] == "sqrt-dk" and documents[-1] == "blog"  # the documents' order


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.id)
def test_every_step_plays_sets_its_fields_and_quotes_what_the_panels_compute(lesson):
    assert verify_lesson(lesson) == []
    assert sum(len(s.quotes) for s in lesson.steps) >= len(lesson.steps) - 1


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda x: x.id)
def test_portuguese_captions_differ_from_english(lesson):
    assert lesson.title["pt_BR"] != lesson.title["en"]
    for step in lesson.steps:
        assert step.caption["pt_BR"] != step.caption["en"]
        assert step.caption_in("pt_BR") == step.caption["pt_BR"]
        assert step.caption_in("de") == step.caption["en"]  # no lesson in German: English
        for quote in step.quotes:
            assert quote.text["pt_BR"] in step.caption["pt_BR"]


@pytest.mark.parametrize(
    "figure, lesson_id, step, text, quoted", GUIDE_FIGURES, ids=[f[0] for f in GUIDE_FIGURES]
)
def test_every_figure_of_the_guide_is_on_screen(figure, lesson_id, step, text, quoted):
    lesson = lesson_by_id(lesson_id, PANELS)
    s = lesson.steps[step - 1]
    assert text in s.caption["en"], figure
    if quoted or parse_number(text) is not None:  # a number: on the Portuguese screen too
        assert portuguese_number(text) in s.caption["pt_BR"], figure
    if quoted:
        assert any(q.text["en"] == text for q in s.quotes), figure


def test_the_guide_arithmetic_a_caption_states_without_a_panel():
    # "0.9⁶⁴ ≈ 10⁻³" (reach, step 2) is the chapter's own sum, not a panel's number.
    assert 0.5e-3 < 0.9**64 < 2e-3


def test_the_hand_worked_example_is_exactly_the_chapters():
    lesson = lesson_by_id("hand-worked", PANELS)
    workspace = Workspace()
    play_step(workspace.document, lesson, 4)
    steps = workspace.resolver.results.steps
    assert [round(x, 2) for x in steps.scaled] == [0.71, 2.12, 2.83]
    assert [round(x, 2) for x in steps.weights] == [0.07, 0.31, 0.62]
    assert [round(x, 2) for x in steps.output] == [0.85, 0.15]
    assert workspace.state.matrix == "output"


def test_steps_are_scenes_not_edits():
    lesson = lesson_by_id("hand-worked", PANELS)
    fresh = Document()
    play_step(fresh, lesson, 7)  # experiment 2: the preset again, then the query moved
    doc = Document()
    for index in (6, 7, 2, 7):  # back and forth lands on the same state
        play_step(doc, lesson, index)
    assert doc.attention.snapshot()["q"].tolist() == fresh.attention.snapshot()["q"].tolist()
    assert doc.attention.v.tolist() == [[1, 0], [0.5, 0.5], [1, 0]]  # praça's value is back
    assert step_snapshot(lesson, 1)["attention"]["matrix"] == "scores"
    with pytest.raises(IndexError):
        step_snapshot(lesson, len(lesson))


def test_a_step_that_changes_nothing_emits_nothing():
    lesson = lesson_by_id("kv-cache", PANELS)
    doc = Document()
    play_step(doc, lesson, 0)
    seen = []
    doc.changed.connect(lambda topic, names: seen.append(topic))
    play_step(doc, lesson, 0)
    assert seen == []


# --- broken files ----------------------------------------------------------------------------
def _valid() -> dict:
    return copy.deepcopy(
        json.loads(open(lesson_by_id("sqrt-dk", PANELS).path, encoding="utf-8").read())
    )


def _break(edit):
    data = _valid()
    edit(data)
    return data


BROKEN = [
    ("unknown topic", lambda d: d["steps"][1].update(set={"nosuch.d_k": 3}), 2, "nosuch"),
    ("unknown field", lambda d: d["steps"][0]["set"].update({"attention.dk": 3}), 1, "dk"),
    ("bad value", lambda d: d["steps"][2]["set"].update({"attention.d_k": "eight"}), 3, "d_k"),
    ("huge value", lambda d: d["steps"][2]["set"].update({"attention.d_k": 10**400}), 3, "d_k"),
    ("missing pt_BR caption", lambda d: d["steps"][3]["caption"].pop("pt_BR"), 4, "pt_BR"),
    ("empty English caption", lambda d: d["steps"][0]["caption"].update(en=" "), 1, "en"),
    ("unknown panel", lambda d: d["steps"][0].update(panels=["heatmap", "nope"]), 1, "nope"),
    ("unknown preset", lambda d: d["steps"][0].update(preset="nope"), 1, "nope"),
    (
        "quote not in caption",
        lambda d: d["steps"][0]["quotes"].append(
            {"text": "12345", "from": {"field": "attention.d_k"}}
        ),
        1,
        "12345",
    ),
    (
        "quote without a source",
        lambda d: d["steps"][0]["quotes"].append({"text": "256"}),
        1,
        "from",
    ),
    (
        "private path",
        lambda d: d["steps"][0]["quotes"].append(
            {"text": "256", "from": {"resolver": "memory", "path": "card.__class__"}}
        ),
        1,
        "private",
    ),
    (
        "highlight off the matrix",
        lambda d: d["steps"][0].update(highlight={"panel": "heatmap", "row": 3}),
        1,
        "outside",
    ),
    (
        "highlight of a hidden panel",
        lambda d: d["steps"][0].update(highlight={"panel": "heatmap", "row": 0}, panels=["steps"]),
        1,
        "not shown",
    ),
    (
        "label in one language",
        lambda d: d["steps"][0]["quotes"].append(
            {"text": "256", "label": {"en": "d_k"}, "from": {"field": "attention.d_k"}}
        ),
        1,
        "pt_BR",
    ),
    (
        "label too long",
        lambda d: d["steps"][0]["quotes"].append(
            {
                "text": "256",
                "label": {"en": "x" * 61, "pt_BR": "y"},
                "from": {"field": "attention.d_k"},
            }
        ),
        1,
        "at most",
    ),
    (
        "figure on a hidden panel",
        lambda d: d["steps"][0]["quotes"].append(
            {
                "text": "256",
                "label": {"en": "d_k", "pt_BR": "d_k"},
                "on": "memory",
                "from": {"field": "attention.d_k"},
            }
        ),
        1,
        "does not show",
    ),
    ("unknown step key", lambda d: d["steps"][1].update(caption_de="x"), 2, "caption_de"),
    ("no steps", lambda d: d.update(steps=[]), None, "steps"),
    ("bad id", lambda d: d.update(id="9lives"), None, "id"),
    ("missing title", lambda d: d["title"].pop("en"), None, "title"),
]


@pytest.mark.parametrize("name, edit, step, says", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_lesson_is_refused_naming_file_step_and_reason(name, edit, step, says):
    with pytest.raises(LessonError) as info:
        lesson_from_dict(_break(edit), "broken.json", panels=PANELS)
    err = info.value
    assert err.file == "broken.json" and err.step == (None if step is None else step - 1)
    assert says in err.reason
    assert str(err).startswith("broken.json" + ("" if step is None else f", step {step}"))


def test_a_file_that_is_not_json_or_misnamed_is_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(LessonError, match="bad.json: cannot be read"):
        load_lesson(bad, panels=PANELS)
    other = tmp_path / "other.json"
    other.write_text(json.dumps(_valid()), encoding="utf-8")
    with pytest.raises(LessonError, match="differs from the file name"):
        load_lesson(other, panels=PANELS)


def test_every_shipped_file_is_a_lesson():
    assert len(lesson_paths()) == len(LESSONS)
    assert {p.stem for p in lesson_paths()} == {x.id for x in LESSONS}


@settings(max_examples=60, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "id",
                        "steps",
                        "set",
                        "caption",
                        "en",
                        "pt_BR",
                        "format",
                        "title",
                        "panels",
                        "quotes",
                    ]
                ),
                inner,
                max_size=4,
            )
        ),
        max_leaves=12,
    )
)
def test_any_json_is_a_lesson_or_a_lesson_error(data):
    try:
        lesson_from_dict(data, "fuzz.json", panels=PANELS)
    except LessonError as exc:
        assert str(exc).startswith("fuzz.json")


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(
        [
            "attention.d_k",
            "attention.temperature",
            "memory.context",
            "reach.length",
            "embedding.vocab_size",
        ]
    ),
    st.one_of(
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=True),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=3),
    ),
)
def test_a_lesson_value_is_checked_by_the_topic(path, value):
    data = _valid()
    data["steps"][0]["set"] = {path: value}
    topic, _, field = path.partition(".")
    trial = Document()
    try:
        trial[topic].update(**{field: value})
        ok = True
    except Exception:  # the topic's own verdict is the oracle
        ok = False
    if ok:
        lesson_from_dict(data, "v.json", panels=PANELS)
    else:
        with pytest.raises(LessonError, match=r"v\.json, step 1"):
            lesson_from_dict(data, "v.json", panels=PANELS)


# --- quotes ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, value, half",
    [("0.9817", 0.9817, 5e-5), ("68,719,476,736", 68719476736, 0.5), ("5·10⁻⁴", 5e-4, 5e-5),
     ("10⁻¹⁴", 1e-14, 5e-15), ("2e-6", 2e-6, 5e-7), ("1/3", 1 / 3, 0.005),
     ("128 KiB", 128, 0.5), ("34.36 GB", 34.36, 0.005), ("1.7·10¹⁰", 1.7e10, 5e8),
     ("−0.5", -0.5, 0.05)],
)  # fmt: skip
def test_numbers_as_captions_write_them(text, value, half):
    got, got_half = parse_number(text)
    assert math.isclose(got, value, rel_tol=1e-12) and math.isclose(got_half, half)


def test_text_that_is_not_a_number():
    assert parse_number("q = [1, 2]") is None and parse_number("MHA") is None


def test_portuguese_numbers_swap_the_separators():
    assert portuguese_number("68,719,476,736") == "68.719.476.736"
    assert portuguese_number("0.9817") == "0,9817"
    assert portuguese_number("34.36 GB") == "34,36 GB"


def test_quote_tolerances():
    exact = Quote({}, 0.9817, 5e-5, None, {})
    assert exact.matches(0.98169) and not exact.matches(0.9818) and not exact.matches(math.nan)
    loose = Quote({}, 5e-4, 0.0, 2.0, {})
    assert loose.matches(3.9e-4) and loose.matches(9.9e-4) and not loose.matches(2.4e-4)
    below = Quote({}, 1e-15, 0.0, None, {}, "below")
    assert below.matches(5e-17) and not below.matches(2e-15)
    above = Quote({}, 20.0, 0.0, None, {}, "above")
    assert above.matches(24.3) and not above.matches(19.0)


def test_loading_the_lessons_loads_no_model():
    """The prediction lesson opens builtin:induction; listing the lessons (the Lessons
    dock at start-up, `attnviz lessons`) must not import torch or run the model."""
    import subprocess
    import sys

    code = (
        "import sys; from attnviz.model.lessons import lesson_paths, load_lesson; "
        "ls = [load_lesson(p) for p in lesson_paths()]; "
        "print(','.join(sorted(x.id for x in ls if x.needs_model)), 'torch' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert out == ["induction,prediction,why-it-attends", "False"]


def test_a_model_lesson_is_listed_only_where_a_model_can_be_opened(monkeypatch):
    from attnviz.model import lessons

    lessons._shipped.cache_clear()
    monkeypatch.setattr(lessons, "models_run", lambda: False)
    try:
        ids = [x.id for x in lessons.shipped_lessons()]
        assert "prediction" not in ids and "sqrt-dk" in ids
        monkeypatch.setattr(lessons, "models_run", lambda: True)
        assert "prediction" in [x.id for x in lessons.shipped_lessons()]
    finally:
        lessons._shipped.cache_clear()


def test_a_model_lessons_values_are_still_checked_by_their_fields(tmp_path):
    from attnviz.model.lessons import LessonError, load_lesson

    step = {"set": {"attention.head": "model", "attention.model_path": "builtin:induction",
                    "prediction.temperature": -1}, "panels": ["prediction"],
            "caption": {"en": "x", "pt_BR": "x"}}  # fmt: skip
    path = tmp_path / "bad-model.json"
    path.write_text(json.dumps({"format": 1, "id": "bad-model", "title": {"en": "t", "pt_BR": "t"},
                                "steps": [step]}))  # fmt: skip
    with pytest.raises(LessonError, match="temperature"):
        load_lesson(path)
