"""The reader registry: one row per evaluation-output format, the one place a format is named.

Every command's ``--from`` (``leaderboard``, ``tiny``, ``estimate``) and ``irtbridge ingest FORMAT`` take
their choices, their detection and their options from :data:`READERS`. A row says:

* ``name``: the format's name on the command line (``lm-eval``, ``inspect``, ...);
* ``function``: the reader, ``"module:function"``, imported only when the format is read;
* ``detect``: whether a path (file or folder) holds this format, from names and a few bytes only;
* ``options``: the reader's keyword options a command may pass (``metric``, ``threshold``, ...);
* ``metrics``: the function listing each task's metrics (``--list-metrics``), where the format has one.

Adding a format is a module in ``leaderboard/readers/`` and a row here (CONTRIBUTING's recipe).
This module imports nothing beyond the standard library, so the command line can name the formats
without loading the readers.
"""

from __future__ import annotations

import importlib
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from irtbridge.exceptions import ValidationError

__all__ = ["Reader", "READERS", "FORMAT_NAMES", "detect_format", "reader", "read_format"]


@dataclass(frozen=True)
class Reader:
    """One evaluation-output format.

    Parameters
    ----------
    name : str
        The format's name (``--from NAME``, ``irtbridge ingest NAME``).
    title : str
        What it reads, in a few words (help texts, the README's list).
    function : str
        The reader, ``"module:function"``; it returns the long table ``model, task, item, score, ...``.
    detect : callable
        ``detect(path) -> bool``: the path (a file, or a folder searched recursively) holds this format.
    options : tuple of str
        The reader's keyword options a command may pass on.
    metrics : str or None
        ``"module:function"`` listing each task's metrics, or None.
    """

    name: str
    title: str
    function: str
    detect: Callable[[Path], bool]
    options: tuple[str, ...]
    metrics: str | None = None

    def load(self) -> Callable[..., Any]:
        """The reader function (its module imported now).

        Returns
        -------
        callable
            The reader.
        """
        module, _, name = self.function.partition(":")
        return getattr(importlib.import_module(module), name)

    def list_metrics(self) -> Callable[..., Any] | None:
        """The function listing the metrics of this format's files, or None.

        Returns
        -------
        callable or None
            The lister.
        """
        if self.metrics is None:
            return None
        module, _, name = self.metrics.partition(":")
        return getattr(importlib.import_module(module), name)


# ------------------------------------------------------------------------------------------------- detection
def _files(path: Path, pattern: str) -> Iterator[Path]:
    if path.is_file():
        yield path
    elif path.is_dir():
        yield from path.rglob(pattern)


def _head(path: Path, n: int = 4096) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(n).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError:
        return b""


_LM_EVAL_NAME = re.compile(r"^samples_.+\.jsonl$")
_TIMESTAMPED = re.compile(r"_\d{4}-\d\d-\d\dT[\d.\-]+\.(jsonl|parquet)$")


def _is_lm_eval(path: Path) -> bool:
    return any(_LM_EVAL_NAME.match(p.name) for p in _files(path, "samples_*.jsonl"))


def _is_helm(path: Path) -> bool:
    return any(p.name == "per_instance_stats.json" for p in _files(path, "per_instance_stats.json"))


def _is_pyirt(path: Path) -> bool:
    for p in _files(path, "*.json*"):
        if p.suffix == ".jsonlines":
            return True
        if p.suffix == ".jsonl" and not _LM_EVAL_NAME.match(p.name) and b'"subject_id"' in _head(p, 512):
            return True
    return False


def _inspect_file(p: Path) -> bool:
    if p.suffix == ".eval":
        try:
            with zipfile.ZipFile(p) as z:
                names = set(z.namelist())
        except (OSError, zipfile.BadZipFile):
            return False
        return "header.json" in names or "_journal/start.json" in names
    if p.suffix == ".json" and p.name != "per_instance_stats.json":
        head = _head(p)
        return head.startswith(b"{") and b'"version"' in head[:200] and b'"eval"' in head
    return False


def _is_inspect(path: Path) -> bool:
    return any(_inspect_file(p) for p in _files(path, "*.eval")) or \
        any(_inspect_file(p) for p in _files(path, "*.json"))


def _is_opencompass(path: Path) -> bool:
    for p in _files(path, "*.json"):
        if p.suffix == ".json" and p.parent.parent.name == "results":
            head = _head(p, 1 << 16)
            if head.startswith(b"{") and b'"details"' in head:
                return True
    return False


def _parquet_names(path: Path) -> Iterator[str]:
    return (p.name for p in _files(path, "*.parquet") if p.suffix == ".parquet")


def _is_lighteval(path: Path) -> bool:
    return any(n.startswith("details_") and not n.startswith("details_harness|") for n in _parquet_names(path))


def _is_open_llm(path: Path) -> bool:
    return any(n.startswith("details_harness|") or (n.startswith("samples_leaderboard_") and _TIMESTAMPED.search(n))
               for n in _parquet_names(path))


# ------------------------------------------------------------------------------------------------- the table
_R = "irtbridge.leaderboard.readers"
READERS: dict[str, Reader] = {r.name: r for r in (
    Reader("lm-eval", "lm-evaluation-harness --log_samples output (samples_<task>_<time>.jsonl)",
           f"{_R}.lm_eval:read_lm_eval", _is_lm_eval, ("metric", "filter", "item_id", "threshold", "model"),
           f"{_R}.lm_eval:lm_eval_metrics"),
    Reader("helm", "HELM run folders (per_instance_stats.json)", f"{_R}.helm:read_helm", _is_helm,
           ("metric", "split", "trial", "perturbations", "threshold")),
    Reader("pyirt", "py-irt JSON Lines responses (.jsonlines)", f"{_R}.pyirt:read_pyirt", _is_pyirt,
           ("task",)),
    Reader("inspect", "Inspect AI logs (.eval and .json)", f"{_R}.inspect:read_inspect", _is_inspect,
           ("metric", "epoch", "threshold", "model"), f"{_R}.inspect:inspect_metrics"),
    Reader("lighteval", "lighteval details (details_<task>|<shots>_<time>.parquet)",
           f"{_R}.details:read_lighteval", _is_lighteval, ("metric", "threshold", "model"),
           f"{_R}.details:lighteval_metrics"),
    Reader("open-llm-leaderboard", "Open LLM Leaderboard v1/v2 details (parquet)",
           f"{_R}.details:read_open_llm_leaderboard", _is_open_llm, ("metric", "threshold", "model"),
           f"{_R}.details:open_llm_leaderboard_metrics"),
    Reader("opencompass", "OpenCompass results/<model>/<dataset>.json with per-item details",
           f"{_R}.opencompass:read_opencompass", _is_opencompass, ("metric", "threshold")),
)}
FORMAT_NAMES: tuple[str, ...] = tuple(READERS)


def reader(name: str, param: str = "--from") -> Reader:
    """The registry row of a format name; an unknown name is a one-line error listing the formats.

    Parameters
    ----------
    name : str
        The format's name.
    param : str, default "--from"
        The option named in the error.

    Returns
    -------
    Reader
        The row.
    """
    row = READERS.get(name) if isinstance(name, str) else None
    if row is None:
        raise ValidationError(f"{param} {name!r} is not a format irtbridge reads; the formats: "
                              f"{', '.join(FORMAT_NAMES)}")
    return row


def detect_format(paths: Iterable[Path]) -> str | None:
    """The format of harness output (the first row whose ``detect`` accepts a path), or None.

    Parameters
    ----------
    paths : iterable of Path
        Files or folders.

    Returns
    -------
    str or None
        The format's name; None when no row recognises any path (a CSV, say).
    """
    paths = list(paths)
    for row in READERS.values():
        if any(row.detect(p) for p in paths):
            return row.name
    return None


def read_format(name: str, paths: Any, **options: Any) -> Any:
    """Read ``paths`` with the format's reader, passing only the options given (not None).

    Parameters
    ----------
    name : str
        The format's name.
    paths : path or list of paths
        What the reader reads.
    **options
        Keyword options; one the format does not take is a one-line error naming it.

    Returns
    -------
    DataFrame
        The reader's long table.
    """
    row = reader(name)
    given = {k: v for k, v in options.items() if v is not None}
    foreign = [k for k in given if k not in row.options]
    if foreign:
        raise ValidationError(f"--{foreign[0].replace('_', '-')} is not an option of the {name} reader (its "
                              f"options: {', '.join(row.options) or 'none'})")
    target = paths if not isinstance(paths, (list, tuple)) or len(paths) != 1 else paths[0]
    return row.load()(target, **given)
