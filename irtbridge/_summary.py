"""One headline object per result, rendered as text, HTML or a dict (in the spirit of statsmodels' ``Summary``).

Every public result's ``summary()`` returns a :class:`Summary`. Its headline is a tuple of
:class:`Line` objects built once from the result's numbers; each line is a sequence of segments, some
marked :class:`Strong` (a name the reader looks for) or :class:`Warn` (something went wrong), so the
plain text and the HTML say exactly the same thing and only the markup differs. Tables are DataFrames,
rounded only when rendered; ``data`` holds the unrounded, JSON-ready numbers behind the lines.

``print(summary)`` shows the text; a Jupyter cell shows the HTML (``_repr_html_``, the same content);
``summary.to_dict()`` is what ``--json`` prints.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import pandas as pd

__all__ = ["Summary", "Line", "Strong", "Warn", "HasSummary", "fit_lines"]


class Strong(str):
    """A segment to emphasize (bold in HTML, plain in text)."""


class Warn(str):
    """A segment that reports a problem (highlighted in HTML, plain in text)."""


@dataclass(frozen=True)
class Line:
    """One headline: a key (for scripts) and its segments."""

    key: str
    parts: tuple[str, ...]

    @classmethod
    def of(cls, key: str, *parts: str) -> "Line":
        return cls(key, tuple(p for p in parts if p))

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def html(self) -> str:
        out = []
        for p in self.parts:
            body = html.escape(str(p))
            out.append(f"<b>{body}</b>" if isinstance(p, Strong) else
                       f"<span class='warn'>{body}</span>" if isinstance(p, Warn) else body)
        return "".join(out)


@dataclass(frozen=True)
class Summary:
    """The headline of a result.

    Attributes
    ----------
    title : str
    lines : tuple of Line
        The headline, most important first.
    tables : tuple of (caption, DataFrame)
        Tables shown after the headline (rounded only when rendered).
    notes : tuple of str
        Footnotes: convergence, warnings, what is missing and why.
    data : mapping
        The numbers behind the lines, JSON-ready and unrounded (:meth:`to_dict` returns them).
    digits : int or mapping
        Decimals of floats when the tables are rendered; a mapping column -> decimals (``"*"``: the rest).
    """

    title: str
    lines: tuple[Line, ...] = ()
    tables: tuple[tuple[str, pd.DataFrame], ...] = ()
    notes: tuple[str, ...] = ()
    data: Mapping[str, Any] = field(default_factory=dict)
    digits: int | Mapping[str, int] = 3

    def line(self, key: str) -> Line | None:
        """The headline line with this key, or None.

        Parameters
        ----------
        key : str
            A line's key.

        Returns
        -------
        Line or None
            The line.
        """
        return next((x for x in self.lines if x.key == key), None)

    def as_text(self) -> str:
        """Plain text: the title, one headline per line, the tables, the notes.

        Returns
        -------
        str
            The text.
        """
        out = [self.title, "=" * min(len(self.title), 100)]
        out += [f"  {x.text}" for x in self.lines]
        for caption, frame in self.tables:
            out += ["", caption, frame.to_string(formatters=self._formatters(frame))]
        if self.notes:
            out += ["", "Notes:"] + [f"  [{i}] {n}" for i, n in enumerate(self.notes, 1)]
        return "\n".join(out)

    def as_html(self) -> str:
        """One HTML fragment with the same content as :meth:`as_text`.

        Returns
        -------
        str
            The HTML fragment.
        """
        out = [f"<div class='irtbridge-summary'><h4>{html.escape(self.title)}</h4>"]
        if self.lines:
            out.append("<ul>" + "".join(f"<li>{x.html}</li>" for x in self.lines) + "</ul>")
        for caption, frame in self.tables:
            out.append(f"<p><b>{html.escape(caption)}</b></p>")
            out.append(frame.to_html(formatters=self._formatters(frame), border=0))
        if self.notes:
            out.append("<p>Notes:</p><ol>" + "".join(f"<li>{html.escape(n)}</li>" for n in self.notes) + "</ol>")
        out.append("</div>")
        return "".join(out)

    def _formatters(self, frame: pd.DataFrame) -> dict[str, Any]:
        """Per float column: its decimals (rounding happens here, never in the stored numbers)."""
        table = self.digits if isinstance(self.digits, Mapping) else {"*": self.digits}
        out = {}
        for col in frame.columns:
            if pd.api.types.is_float_dtype(frame[col]):
                d = table.get(str(col), table.get("*", 3))
                out[col] = lambda v, d=d: "" if pd.isna(v) else f"{v:.{d}f}"
        return out

    def to_dict(self) -> dict[str, Any]:
        """``data`` plus ``headline`` (key -> text) and ``notes``, JSON-ready.

        Returns
        -------
        dict of str to Any
            JSON-ready.
        """
        from irtbridge._io import to_jsonable  # irtbridge._io (10 ms) loads for to_dict() only

        return to_jsonable({**dict(self.data), "headline": {x.key: x.text for x in self.lines},
                            "notes": list(self.notes)})

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()

    def __contains__(self, text: object) -> bool:
        """``"x" in summary`` searches the text rendering (as it did when ``summary()`` returned a string)."""
        return isinstance(text, str) and text in self.as_text()


class HasSummary:
    """Mixin of the result classes: Jupyter shows ``summary()`` as HTML, the same content ``print`` shows."""

    def summary(self) -> Summary:  # pragma: no cover - every result defines its own
        """The result's :class:`Summary`, from its stored numbers.

        Returns
        -------
        Summary
            Text, HTML and dict renderings of the result.
        """
        raise NotImplementedError

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def fit_lines(result: Any, digits: int) -> tuple[Line, Line]:
    """The log-likelihood and convergence lines of a fitted model's summary (``loglik``, ``aic``, ``bic``,
    ``converged``, ``iterations``)."""
    return (Line.of("loglik", f"log-likelihood {result.loglik:.{digits}f}   AIC {result.aic:.{digits}f}   "
                              f"BIC {result.bic:.{digits}f}"),
            Line.of("converged", f"converged {'yes' if result.converged else 'NO'} after {result.iterations} iterations"))


def frame_of(rows: Iterable[Mapping[str, Any]], index: str | None = None) -> pd.DataFrame:
    """A DataFrame from row dicts, indexed by ``index`` when given (a small helper for summary tables)."""
    frame = pd.DataFrame(list(rows))
    return frame.set_index(index) if index is not None and len(frame) else frame
