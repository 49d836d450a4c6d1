"""What a leaderboard report reads: a response matrix, a long table, or a harness's output, checked first.

* **matrix**: models x items, cells 1 (right), 0 (wrong) or empty (unanswered); in a CSV file the model
  names are the first column (or ``id_column``) unless that column holds only 0/1 cells.
* **long**: one row per answered (model, item) pair, columns ``model, item, score`` and optionally ``task``
  and ``limit`` (a run made with lm-evaluation-harness's ``--limit``: :attr:`LeaderboardInput.limits`)
  (detected by the header); what :func:`irtbridge.leaderboard.read_lm_eval` and ``read_helm`` return.
* a **harness format** (``lm-eval``, ``helm``, ``inspect``, ...): read by the row of
  :data:`irtbridge.leaderboard.readers.registry.READERS` of that name (detected by default).

Every check runs before any fitting: a cell that is not 0/1 (naming its line or row and column), fewer than
two models, an empty file, a model with no answer, a (model, item) pair given twice with different scores are
one-line :class:`~irtbridge.exceptions.ValidationError` s. Two rules hold for every command that reads
responses, each in one function here: the model-name column of a matrix (:func:`model_column`) and repeated
models or pairs (identical repeats count once, conflicting ones are an error naming them). Warnings raised
while reading (a reader's older runs left out, continuous scores) are kept in :attr:`LeaderboardInput.notes`
as well (:func:`capture_warnings`).
"""

from __future__ import annotations

import os
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, FsPath, Number, constraints
from irtbridge._validation import read_csv
from irtbridge.exceptions import IrtBridgeWarning, ValidationError
from irtbridge.leaderboard._answers import one_row_per_model
from irtbridge.leaderboard.long import long_to_matrix, read_table
from irtbridge.leaderboard.readers.registry import FORMAT_NAMES, detect_format, read_format

__all__ = ["LeaderboardInput", "read_leaderboard_input", "as_leaderboard_input", "read_tiny_errors", "SOURCES",
           "capture_warnings", "read_table", "model_column", "one_row_per_model"]

SOURCES = ("auto", "matrix", "long", *FORMAT_NAMES)
LONG_COLUMNS = ("model", "item", "score")


def model_column(frame: pd.DataFrame, id_column: str | None, where: str) -> pd.DataFrame:
    """The one model-name rule of a response matrix read from a file, for every command.

    ``id_column`` names the column when given; otherwise the first column holds the model names when its
    header is ``model``/``models``/empty or it holds anything but 0/1/empty cells; otherwise the rows are
    numbered ``model 1, model 2, ...``. A model named twice counts once when its rows are identical and is
    an error naming it when they differ.

    Parameters
    ----------
    frame : DataFrame
        The file as read (a header row, one row per model).
    id_column : str or None
        The column of model names (``--id-column``).
    where : str
        The file, for error messages.

    Returns
    -------
    DataFrame
        Items as columns, models as the index (strings).

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["a", "b", "a"], "q1": [1, 0, 1], "q2": [0, 0, 0]})
    >>> model_column(frame, None, "example").index.tolist()
    ['a', 'b']
    """
    if id_column is not None:
        if id_column not in frame.columns:
            raise ValidationError(f"{where}: no column {id_column!r} (the model names)")
        frame = frame.set_index(id_column)
    elif frame.shape[1] and (
            str(frame.columns[0]).strip().lower() in ("model", "models", "") or str(frame.columns[0]).startswith("Unnamed:")
            or not _is_binary_column(frame.iloc[:, 0])):
        frame = frame.set_index(frame.columns[0])
    else:
        frame = frame.set_axis([f"model {i + 1}" for i in range(len(frame))], axis=0)
    return one_row_per_model(frame, where)


@dataclass(frozen=True)
class LeaderboardInput:
    """The checked responses: ``matrix`` (models x items, float 1/0/NaN), ``tasks`` (item -> task, or None),
    ``source`` (what was read, for the report), ``notes`` (what was left out and why, and every warning
    raised while reading) and ``limits`` (runs made with lm-evaluation-harness's ``--limit``).

    Parameters
    ----------
    matrix : DataFrame
        Models x items, float 1/0/NaN.
    tasks : mapping of str to str, optional
        Item -> task.
    source : str, default "responses"
        What was read.
    notes : tuple of str
        What was left out and why; the warnings raised while reading.
    limits : mapping of str to mapping, optional
        Model -> {task: limit} for the runs made with ``--limit`` (the ``limit`` column of a long table:
        :func:`irtbridge.leaderboard.read_lm_eval` reads it from ``results_*.json``); None when there are none.
    """

    matrix: pd.DataFrame
    tasks: Mapping[str, str] | None = None
    source: str = "responses"
    notes: tuple[str, ...] = field(default_factory=tuple)
    limits: Mapping[str, Mapping[str, float]] | None = None


@contextmanager
def capture_warnings(notes: list[str]) -> Iterator[None]:
    """Inside the block, every irtbridge warning's text is also appended to ``notes`` (once).

    So that what a command prints on stderr also reaches the result's notes (the ``Summary`` notes: the text,
    the HTML page and ``summary.json``). Every warning (each text once) is raised again when the block ends,
    where it was first raised (:func:`warnings.warn_explicit`), so filters and the CLI's one-line display apply
    as before.

    Parameters
    ----------
    notes : list of str
        Appended to.

    Yields
    ------
    None

    Examples
    --------
    >>> from irtbridge.exceptions import DataWarning
    >>> notes = []
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with capture_warnings(notes):
    ...         warnings.warn("2 runs left out", DataWarning)
    >>> notes
    ['2 runs left out']
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            for w in caught:
                text = str(w.message)
                if issubclass(w.category, IrtBridgeWarning) and text not in notes:
                    notes.append(text)
    shown = set()
    for w in caught:  # each message once: "always" above turned off the per-location registry that dedupes
        if (w.category, str(w.message)) not in shown:
            shown.add((w.category, str(w.message)))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def _cell(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_binary_column(values: pd.Series) -> bool:
    v = pd.to_numeric(values, errors="coerce")
    return bool((v.notna() == values.notna()).all() and v.dropna().isin((0, 1)).all())


def _check_cells(frame: pd.DataFrame, where: str, first_line: int | None) -> np.ndarray:
    """The cells as float 1/0/NaN, or a one-line error naming the first bad cell's row and column."""
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    bad = (numeric.isna() & frame.notna()) | ~(numeric.isna() | numeric.isin((0, 1)))
    if bad.to_numpy().any():
        r, c = np.argwhere(bad.to_numpy())[0]
        row = f"line {r + first_line} (model {frame.index[r]!r})" if first_line is not None else f"model {frame.index[r]!r}"
        raise ValidationError(f"{where}: {row}, column {str(frame.columns[c])!r} is {_cell(frame.iat[r, c])}; "
                              f"cells must be 0, 1 or empty ({int(bad.to_numpy().sum())} such cell(s))")
    return numeric.to_numpy(dtype=np.float32)  # 0/1/NaN are exact in 4 bytes


def _finish(values: np.ndarray, models: Sequence[Any], items: Sequence[Any], where: str,
            tasks: Mapping[str, str] | None, source: str, notes: list[str]) -> LeaderboardInput:
    """The common checks on a matrix: sizes, repeated names, models without answers, items nobody answered."""
    models = [str(m) for m in models]
    items = [str(i) for i in items]
    if len(models) == 0 or len(items) == 0:
        raise ValidationError(f"{where} is empty: no models or no items")
    if len(models) < 2:
        raise ValidationError(f"{where} has {len(models)} model; a leaderboard needs at least 2")
    for what, names in (("model", models), ("item", items)):
        seen = pd.Index(names)
        if seen.has_duplicates:
            dup = list(dict.fromkeys(seen[seen.duplicated()]))
            raise ValidationError(f"{where}: {what} name(s) {', '.join(map(repr, dup[:5]))} appear more than once")
    answered = ~np.isnan(values)
    silent = [m for m, k in zip(models, answered.sum(axis=1)) if k == 0]
    if silent:
        raise ValidationError(f"{where}: model(s) {', '.join(map(repr, silent[:5]))}{' …' if len(silent) > 5 else ''} "
                              "answered no item")
    unanswered = ~answered.any(axis=0)
    if unanswered.all():
        raise ValidationError(f"{where}: no item was answered")
    if unanswered.any():
        notes.append(f"{int(unanswered.sum())} item(s) that no model answered were left out")
        keep = ~unanswered
        values = values[:, keep]
        items = [i for i, k in zip(items, keep) if k]
    matrix = pd.DataFrame(values, index=pd.Index(models, name="model"), columns=pd.Index(items, name="item"))
    if tasks is not None:
        tasks = {i: str(tasks.get(i, "")) for i in items}
    return LeaderboardInput(matrix, tasks, source, tuple(notes))


def _long(frame: pd.DataFrame, where: str, first_line: int | None, source: str) -> LeaderboardInput:
    """A long table (``model, item, score``, optional ``task``) as a matrix; item keys ``task/item`` when the
    same item name appears under two tasks."""
    columns = {str(c).strip().lower(): c for c in frame.columns}
    missing = [c for c in LONG_COLUMNS if c not in columns]
    if missing:
        raise ValidationError(f"{where}: a long table needs columns model, item, score; missing {', '.join(missing)}")
    model, item, score = (frame[columns[c]] for c in LONG_COLUMNS)
    values = pd.to_numeric(score, errors="coerce")
    bad = (values.isna() & score.notna()) | ~(values.isna() | values.isin((0, 1)))
    if bad.any():
        r = int(np.flatnonzero(bad.to_numpy())[0])
        at = f"line {r + first_line}" if first_line is not None else f"row {r}"
        raise ValidationError(f"{where}: {at}, column 'score' is {_cell(score.iloc[r])}; scores must be 0, 1 or empty "
                              f"({int(bad.sum())} such row(s); binarise continuous metrics first)")
    if model.isna().any() or item.isna().any():
        r = int(np.flatnonzero((model.isna() | item.isna()).to_numpy())[0])
        at = f"line {r + first_line}" if first_line is not None else f"row {r}"
        raise ValidationError(f"{where}: {at} has no model or no item")
    keep = values.notna().to_numpy()
    notes: list[str] = []
    task = frame[columns["task"]].astype(str) if "task" in columns else None
    key = item.astype(str)
    if task is not None:
        pairs = pd.DataFrame({"t": task, "i": key}).drop_duplicates()
        if pairs["i"].duplicated().any():
            key = task + "/" + key
            notes.append("item names repeat across tasks: items are named task/item")
    if not keep.any():
        raise ValidationError(f"{where}: every score is empty")
    m, k = model.astype(str)[keep], key[keep]
    matrix, collapsed = long_to_matrix(m, k, values.to_numpy(dtype=float)[keep], where)
    if collapsed:
        notes.append(f"{collapsed} repeated (model, item) row(s) with the same score counted once")
    tasks = dict(zip(k, task[keep])) if task is not None else None
    data = _finish(matrix.to_numpy(), matrix.index, matrix.columns, where, tasks, source, notes)
    return replace(data, limits=_limits(frame, columns, keep, model, task)) if "limit" in columns else data


def _limits(frame: pd.DataFrame, columns: Mapping[str, Any], keep: np.ndarray, model: pd.Series,
            task: pd.Series | None) -> dict[str, dict[str, float]] | None:
    """Model -> {task: limit} from a long table's ``limit`` column (runs made with ``--limit``)."""
    limit = pd.to_numeric(frame[columns["limit"]], errors="coerce")
    on = limit.notna().to_numpy() & keep
    if not on.any():
        return None
    runs = pd.DataFrame({"m": model.astype(str)[on], "t": task[on] if task is not None else "",
                         "l": limit[on].astype(float)}).drop_duplicates()
    out: dict[str, dict[str, float]] = {}
    for m, t, v in runs.itertuples(index=False):
        out.setdefault(m, {})[t] = float(v)
    return out


def _matrix(frame: pd.DataFrame, where: str, first_line: int | None, id_column: str | None, source: str,
            tasks: Mapping[str, str] | None = None) -> LeaderboardInput:
    if first_line is not None or id_column is not None:
        frame = model_column(frame, id_column, where)
    else:
        frame = one_row_per_model(frame, where)
    if frame.shape[1] == 0:
        raise ValidationError(f"{where} has no item columns")
    values = _check_cells(frame, where, first_line)
    return _finish(values, frame.index, frame.columns, where, tasks, source, [])


def as_leaderboard_input(responses: Any, *, tasks: Mapping[str, str] | None = None) -> LeaderboardInput:
    """A DataFrame (matrix, or long table with ``model, item, score`` columns) or a CSV path, checked.

    Parameters
    ----------
    responses : DataFrame, str or LeaderboardInput
        See above (a LeaderboardInput is returned as it is).
    tasks : mapping of str to str, optional
        Item -> task, for a matrix.

    Returns
    -------
    LeaderboardInput
        The checked responses.

    Examples
    --------
    >>> long = pd.DataFrame({"model": ["m1", "m1", "m2", "m2"], "task": "t", "item": ["q1", "q2", "q1", "q2"],
    ...                      "score": [1, 0, 1, 1]})
    >>> got = as_leaderboard_input(long)
    >>> got.matrix.shape, dict(got.tasks)
    ((2, 2), {'q1': 't', 'q2': 't'})
    """
    if isinstance(responses, LeaderboardInput):
        return responses
    if isinstance(responses, (str, os.PathLike)):
        return read_leaderboard_input([responses])
    if not isinstance(responses, pd.DataFrame):
        raise ValidationError(f"responses must be a DataFrame or a CSV path, got {type(responses).__name__}")
    lower = {str(c).strip().lower() for c in responses.columns}
    if set(LONG_COLUMNS) <= lower:
        return _long(responses.reset_index(drop=True), "long responses", None, "long table")
    if tasks is not None and not isinstance(tasks, Mapping):
        tasks = dict(pd.Series(tasks))
    return _matrix(responses, "responses", None, None, "response matrix", tasks)


def _from_harness(kind: str, paths: list[str], threshold: float | None = None) -> LeaderboardInput:
    long = read_format(kind, paths, threshold=threshold)
    return _long(pd.DataFrame(long).reset_index(drop=True), f"{kind} output {', '.join(paths)}", None, f"{kind} output")


@constraints(source=Choice(SOURCES), threshold=Number(allow_none=True))  # threshold: the readers' declaration
def read_leaderboard_input(paths: Sequence[str | os.PathLike], source: str = "auto", *,
                           id_column: str | None = None, threshold: float | None = None) -> LeaderboardInput:
    """Read and check what ``irtbridge leaderboard RESPONSES`` names.

    Parameters
    ----------
    paths : sequence of paths
        One CSV file (matrix or long table), or harness output files/folders.
    source : {"auto", "matrix", "long"} or a format of the reader registry
        ``"auto"``: paths a row of :data:`~irtbridge.leaderboard.readers.registry.READERS` recognises
        (``samples_*.jsonl``, ``per_instance_stats.json``, Inspect logs, ``.jsonlines``, ...) go to that
        reader; a CSV (or ``.csv.gz``) whose header has ``model, item, score`` is a long table, any other a
        matrix.
    id_column : str, optional
        The matrix column holding the model names (default: the first column, unless it holds only 0/1).
    threshold : float, optional
        Harness output only: a continuous metric scores 1 where it is at least ``threshold`` (the readers'
        ``threshold=``); without it such scores are an error here (the 2PL needs 0/1).

    Returns
    -------
    LeaderboardInput
        The checked responses.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "m.csv"
    >>> _ = path.write_text("model,q1,q2\\nm1,1,0\\nm2,1,\\n")
    >>> read_leaderboard_input([path]).matrix.to_dict("index")
    {'m1': {'q1': 1.0, 'q2': 0.0}, 'm2': {'q1': 1.0, 'q2': nan}}
    """
    notes: list[str] = []
    with capture_warnings(notes):
        data = _read_input(paths, source, id_column, threshold)
    return replace(data, notes=tuple(dict.fromkeys([*data.notes, *notes])))


def _read_input(paths: Sequence[str | os.PathLike], source: str, id_column: str | None,
                threshold: float | None) -> LeaderboardInput:
    if source not in SOURCES:
        raise ValidationError(f"--from must be one of {', '.join(SOURCES)}, got {source!r}")
    if not paths:
        raise ValidationError("no responses given")
    found = [Path(p) for p in paths]
    for p in found:
        if not p.exists():
            raise ValidationError(f"responses {str(p)!r} does not exist")
    kind = (detect_format(found) or "csv") if source == "auto" else source  # "csv": its header decides
    if kind in FORMAT_NAMES:
        return _from_harness(kind, [str(p) for p in found], threshold)
    if len(found) > 1:
        raise ValidationError(f"a response matrix or long table is one CSV file, got {len(found)} paths")
    if threshold is not None:  # a CSV holds 0/1 already: a threshold would be ignored without a word
        raise ValidationError(f"--threshold applies to harness output; {str(found[0])!r} is a CSV of 0/1 answers "
                              "(drop --threshold, or name the harness format with --from)")
    where = f"responses file {str(found[0])!r}"
    frame = read_table(found[0], "responses")
    if kind == "csv":
        kind = "long" if set(LONG_COLUMNS) <= {str(c).strip().lower() for c in frame.columns} else "matrix"
    if kind == "long":
        return _long(frame, where, 2, f"long table {found[0].name}")
    return _matrix(frame, where, 2, id_column, f"response matrix {found[0].name}")


#: what ``irtbridge leaderboard --tiny`` names (the flag shares the declaration)
_TINY_FOLDER = FsPath(must_exist=True, kind="dir", what="the --out folder of irtbridge tiny")


@constraints(folder=_TINY_FOLDER)
def read_tiny_errors(folder: str | os.PathLike) -> tuple[pd.DataFrame | None, str]:
    """The error table of a tiny benchmark folder (``irtbridge tiny RESPONSES --out DIR`` writes ``DIR/errors.csv``).

    Returns the table (None when the folder has no ``errors.csv``) and a sentence for the report saying
    where it came from or why it is missing. This is the hook between ``irtbridge tiny`` and the leaderboard
    report: the report shows the table as it is, with its own columns.

    Parameters
    ----------
    folder : str or os.PathLike
        The tiny benchmark's output folder.

    Returns
    -------
    table : DataFrame or None
        ``errors.csv``, or None.
    source : str
        The sentence.

    Examples
    --------
    >>> import tempfile
    >>> table, said = read_tiny_errors(tempfile.mkdtemp())
    >>> table is None, said.endswith("has no errors.csv")
    (True, True)
    """
    folder = Path(folder)  # an existing folder (declared)
    path = folder / "errors.csv"
    if not path.is_file():
        return None, f"the tiny benchmark folder {str(folder)!r} has no errors.csv"
    return read_csv(path, "tiny benchmark errors"), f"from {str(path)!r}"
