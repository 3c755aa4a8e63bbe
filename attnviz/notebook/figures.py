"""``attnviz.figure()``: any panel as a figure for a notebook or a script.

::

    import attnviz
    fig = attnviz.figure("heatmap", preset="banco")    # shows inline in Jupyter
    fig.save("banco.png"); fig.data("weights")          # a file; the numbers

The figure is the picture ``attnviz export`` draws (on a canvas of the pixel size asked
for, in its theme and language), cropped to what it draws (:mod:`attnviz.notebook.crop`),
and its data are the arrays ``attnviz export --matrix NAME`` writes, from the same
workspace: the defaults, then ``preset``, ``session``, ``model``/``text``, then each ``set``
field. Every argument is checked before anything is built (:mod:`attnviz.notebook.checks`);
work past ``max_seconds`` is refused before it starts (:mod:`attnviz.notebook.long_work`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from attnviz.model.panel_data import data_names, picture_field, shown_data_name
from attnviz.model.sweep import FRAMES_RANGE
from attnviz.notebook import checks, render
from attnviz.notebook.long_work import LONG_WORK_S
from attnviz.notebook.options import FigureError, Look, build, check_panel

#: Formats :meth:`Figure.save` writes, by extension.
PICTURES = ("png", "svg")
DATA = ("csv", "npy")
ANIMATIONS = ("gif", "webp", "apng", "mp4")
#: The heatmap's pictures can show any of these (its data also has q, k and v).
_HEATMAP_MATRICES = ("scores", "weights", "output")


class Figure:
    """One panel drawn from one workspace; see :func:`figure`.

    Attributes
    ----------
    panel : str
        The panel id (``heatmap``, ``steps``, …).
    width, height : int
        The size of its pictures, in pixels.
    theme, lang : str
        ``light`` or ``dark``; ``en`` or ``pt_BR``.
    workspace : attnviz.model.workspace.Workspace
        The fields and results it is drawn from.
    max_seconds : float or None
        The longest work (an overview's map) a picture or an array may start.
    """

    def __init__(
        self, workspace, panel: str, look: Look, max_seconds: float | None = LONG_WORK_S
    ) -> None:
        self.workspace = workspace
        self.panel = panel
        self._look = look
        self._max_seconds = max_seconds

    width = property(lambda self: self._look.width)
    height = property(lambda self: self._look.height)
    theme = property(lambda self: self._look.theme)
    lang = property(lambda self: self._look.lang)
    max_seconds = property(lambda self: self._max_seconds)

    def __repr__(self) -> str:
        return (
            f"<attnviz Figure {self.panel!r} {self.width}×{self.height} {self.theme} {self.lang}>"
        )

    @property
    def data_names(self) -> tuple[str, ...]:
        """The names :meth:`data` accepts (none: the panel exports pictures only)."""
        return data_names(self.panel)

    def _request(self, transparent: bool = False, matrix: str | None = None) -> render.Request:
        return render.Request(self.panel, self._look, transparent, matrix, self._max_seconds)

    def _name(self, name: str | None) -> str:
        names = self.data_names
        checks.text("name", name, optional=True)
        if name is None:
            shown = shown_data_name(self.workspace, self.panel)  # as the command line
            if shown is None:
                raise FigureError(f"panel {self.panel} has no data arrays; save it as .png or .svg")
            return shown
        if name not in names:
            known = ", ".join(names) or "none: this panel exports pictures only"
            raise FigureError(f"unknown data name {name!r} for panel {self.panel}; known: {known}")
        return name

    def data(self, name: str | None = None) -> np.ndarray:
        """Array ``name`` of the panel: what ``attnviz export --matrix NAME --out F.npy``
        writes.

        Parameters
        ----------
        name : str, optional
            One of :attr:`data_names`. By default the one the command line writes without
            ``--matrix``: the heatmap's shown matrix, else the panel's first array.

        Returns
        -------
        numpy.ndarray
            A copy; changing it changes nothing in the figure.
        """
        array = render.data_array(self.workspace, self.panel, self._name(name), self._max_seconds)
        return np.array(array.values)

    def _picture_matrix(self, name: str | None) -> str | None:
        if checks.text("name", name, optional=True) is None:
            return None
        if picture_field(self.panel, name) is not None:
            return name
        raise FigureError(
            f"name= picks the array of a .csv or .npy file; a picture of "
            f"{self.panel} draws the panel (the heatmap's picture takes "
            f"{', '.join(_HEATMAP_MATRICES)})"
        )

    def _repr_png_(self) -> bytes:
        """The PNG Jupyter shows: ``width × height`` pixels, less the wide empty bands
        along its edges (:mod:`attnviz.notebook.crop`)."""
        return render.png_bytes(self.workspace, self._request())

    def _repr_svg_(self) -> str | None:
        """The SVG Jupyter shows where the panel is a vector drawing, else None."""
        return render.svg_text(self.workspace, self._request())

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """What Jupyter shows, drawn once: the PNG, and the SVG of a vector drawing."""
        return render.shown_formats(self.workspace, self._request())

    def save(
        self,
        path,
        *,
        name: str | None = None,
        animate=None,
        frames: int | None = None,
        fps: float | None = None,
        transparent: bool = False,
    ) -> Path:
        """Write the figure to ``path``, in the format its extension names.

        Parameters
        ----------
        path : str or os.PathLike
            ``.png`` or ``.svg`` (cropped to what the panel draws), ``.csv``/``.npy``
            (array ``name``), or ``.gif``/``.webp``/``.apng``/``.mp4`` (with ``animate``;
            every frame is ``width × height``, uncropped).
        name : str, optional
            The array of a ``.csv``/``.npy`` (default as :meth:`data`); for the heatmap's
            pictures and animations, the matrix drawn (scores, weights or output).
        animate : str or list of str, optional
            ``"topic.field=start:stop[:log]"`` (several sweep together), for an animation.
        frames : int, optional
            How many frames the animation has, 2 to 600 (default 30).
        fps : float, optional
            Frames per second of the animation, at most 60 (default 10).
        transparent : bool
            No background (png, svg and the animations that have transparency); True or
            False, nothing else.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        path = render.writable(checks.path_text("path", path))
        ext = path.suffix.lower().lstrip(".")
        transparent = checks.flag("transparent", transparent)
        if frames is not None:
            frames = checks.whole_number("frames", frames, *FRAMES_RANGE)
        if fps is not None:
            fps = checks.real_number("fps", fps)
        if ext in ANIMATIONS:
            from attnviz.notebook.animate import save_animation

            return save_animation(
                self,
                path,
                animate,
                frames=frames,
                fps=fps,
                transparent=transparent,
                matrix=self._picture_matrix(name),
            )
        if animate is not None or frames is not None or fps is not None:
            raise FigureError(
                f"animate=, frames= and fps= make an animation: save it as "
                f"{', '.join('.' + e for e in ANIMATIONS)}"
            )
        if ext in DATA:
            return render.write_data_file(
                self.workspace, self.panel, self._name(name), path, self._max_seconds
            )
        request = self._request(transparent, self._picture_matrix(name))
        if ext == "png":
            path.write_bytes(render.png_bytes(self.workspace, request))
            return path
        if ext == "svg":
            return render.write_svg(self.workspace, request, path)
        known = ", ".join(f".{e}" for e in PICTURES + DATA + ANIMATIONS)
        raise FigureError(f"cannot save {path.name!r}: use {known}")


def figure(
    panel: str = "heatmap",
    *,
    preset: str | None = None,
    session=None,
    model=None,
    text: str | None = None,
    set=None,
    width: int = 1280,
    height: int = 720,
    theme: str = "light",
    lang: str = "en",
    max_seconds: float | None = LONG_WORK_S,
) -> Figure:
    """A panel drawn as ``attnviz export`` draws it, for Jupyter or a script.

    Parameters
    ----------
    panel : str
        A panel id: ``heatmap``, ``steps``, ``gradient``, ``positions``, ``heads``, …
        (:func:`attnviz.model.panels.panel_ids`).
    preset : str, optional
        A preset id (``banco``, ``lesson-sqrt-dk``, ``rope-clock``, …).
    session : str or os.PathLike, optional
        An ``.attnviz`` session applied after the preset.
    model : str or os.PathLike, optional
        A local Hugging Face model folder (or ``"builtin:induction"``, the shipped model
        with induction heads); the heatmap shows its head
        ``attention.layer`` / ``attention.model_head`` (needs ``attnviz[models]``).
    text : str, optional
        The sentence run through ``model``.
    set : dict or list of str, optional
        Fields set last, in order: ``{"attention.d_k": 8}`` or ``["attention.d_k=8"]``
        (a string value is read as ``--set`` reads it: JSON when it parses).
    width, height : int
        Pixel size of the canvas the panel is drawn on (16 to 8192; numpy integers too);
        a picture is cropped to what the panel draws, so a short table does not come
        with a wide empty band under it.
    theme : {"light", "dark"}
    lang : {"en", "pt_BR"}
        The language of the labels (and the decimal comma in Portuguese).
    max_seconds : float or None
        Work a picture or an array would start (the overview's map of a long sequence),
        estimated past this many seconds on this machine, is refused with a
        :class:`FigureError` before it starts (default 60, as ``attnviz export`` without
        ``--yes``); None allows any. Work past ten seconds is said on stderr first, and an
        interrupt (Ctrl+C, a notebook's stop button) stops it.

    Returns
    -------
    Figure

    Raises
    ------
    FigureError
        A ``ValueError`` with a one-line message naming the argument: an unknown panel,
        preset or field, a value of a wrong type or a value a field refuses, a session or
        model that cannot be read.
    """
    look = Look.checked(width, height, theme, lang)
    check_panel(panel)
    limit = checks.max_seconds(max_seconds)
    workspace = build(preset=preset, session=session, model=model, text=text, set=set)
    return Figure(workspace, panel, look, limit)
