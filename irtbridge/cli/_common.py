"""Helpers shared by the subcommands: JSON on stdout (the writers live in irtbridge._io), response reading."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any

import argparse

import pandas as pd

from irtbridge._catalogue import ENGINE_COLUMNS, KERNEL_SCORING, MIRT_METHODS, MIRT_SCORING
from irtbridge._constraints import Choice, Constraint, FsPath, Number, Seed
from irtbridge._io import atomic_write_csv, atomic_write_text, to_jsonable
from irtbridge._validation import R_SEED_MAX, read_csv, read_text, require_columns
from irtbridge.exceptions import ValidationError

__all__ = ["print_json", "to_jsonable", "atomic_write_text", "atomic_write_csv", "add_long_options", "read_responses",
           "folded", "declare_flag", "declare_input", "FLAGS", "DeclaredFlag", "SEED", "FINITE", "ENGINES", "ESTIMATION_METHODS",
           "SCORING_METHODS", "P_ADJUST"]

# Choice-type options are argparse ``choices``, so a bad value is refused before any work. They come from the
# model catalogue (the ground floor: cheap to import, no R); ltm's scoring methods are ltm's own (factor.scores'
# EAP and MAP). tests/cli/test_cli_choices.py checks that they equal the engine table's.
ENGINES = ENGINE_COLUMNS
ESTIMATION_METHODS = MIRT_METHODS
SCORING_METHODS = {"mirt": MIRT_SCORING, "ltm": ("EAP", "MAP"), "native": KERNEL_SCORING}
P_ADJUST = ("holm", "hochberg", "hommel", "bonferroni", "BH", "BY", "fdr", "none")  # ...group_result.P_ADJUST


#: every ``--seed``: a whole number from 0 to 2**31 - 1 (R's ``set.seed`` takes no larger)
SEED = Seed(high=R_SEED_MAX)
#: a number flag such as ``--threshold``: finite (argparse's ``type=float`` takes ``inf`` and ``nan``)
FINITE = Number(allow_none=True)


@dataclass(frozen=True)
class DeclaredFlag:
    """One checked flag of a subcommand: its constraint, and the library parameter it feeds when the two
    must refuse the same values (``"irtbridge.leaderboard.tiny.build_tiny:k"``; tests/cli/test_cli_flags.py
    checks that the declarations are equal)."""

    command: str
    flag: str
    constraint: Constraint
    parameter: str | None = None


#: every declared flag, by (subcommand, flag), as :func:`declare_flag` registered it
FLAGS: dict[tuple[str, str], DeclaredFlag] = {}


def declare_flag(p: argparse.ArgumentParser, *names: str, constraint: Constraint, parameter: str | None = None,
                 **kwargs: Any) -> argparse.Action:
    """Add a checked flag: its ``type`` (and ``choices``) derived from ``constraint``, so a bad value is one line
    naming the flag while the command line is read (before any file is read or R starts), in the words of the
    library's own check; registered in :data:`FLAGS` for the generated tests.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    *names : str
        The flag and its aliases (``"--test-fraction", "--test-size"``).
    constraint : Constraint
        What the flag's value may be (:mod:`irtbridge._constraints`).
    parameter : str, optional
        ``"module.function:parameter"`` whose declaration the flag shares.
    **kwargs
        The rest of ``add_argument``'s arguments (``default``, ``help``, ``metavar``, ``dest``).

    Returns
    -------
    argparse.Action
        The flag's action.
    """
    if isinstance(constraint, Choice):  # argparse's own choices: the help lists them, a bad one is refused
        choices = tuple(constraint.choices)
        kwargs.update(choices=choices, type=folded(choices) if constraint.ignore_case else str)
    else:
        kwargs["type"] = constraint.as_argparse_type(names[0])
    FLAGS[(p.prog, names[0])] = DeclaredFlag(p.prog, names[0], constraint, parameter)
    return p.add_argument(*names, **kwargs)


def declare_input(p: argparse.ArgumentParser, name: str, *, what: str, kind: str = "file",
                  **kwargs: Any) -> argparse.Action:
    """Add an input path (a positional or a flag) that must exist: declared with :func:`declare_flag` as an
    :class:`~irtbridge._constraints.FsPath`, so a missing file, or a folder where a file is wanted, is one line
    naming the argument while the command line is read, before any work.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    name : str
        The positional's name (``"file"``) or the flag (``"--bank"``).
    what : str
        What the path must lead to, for the message (``"a bank file (irtbridge tiny)"``).
    kind : {"file", "any"}
        ``"file"``: a folder is refused; ``"any"``: a file or a folder (harness output).
    **kwargs
        The rest of ``add_argument``'s arguments (``metavar``, ``help``, ``nargs``).

    Returns
    -------
    argparse.Action
        The argument's action.
    """
    return declare_flag(p, name, constraint=FsPath(must_exist=True, kind=kind, what=what), **kwargs)


def folded(choices: tuple[str, ...]):
    """An argparse ``type`` for a case-insensitive choice: the canonical spelling of ``text`` when it is
    one of ``choices`` in any case, else ``text`` as typed (argparse's ``choices=`` then refuses it).

    Examples
    --------
    >>> convert = folded(("EAP", "MAP"))
    >>> convert("eap"), convert("nope")
    ('EAP', 'nope')
    """
    table = {c.lower(): c for c in choices}

    def choice(text: str) -> str:
        return table.get(text.lower(), text)

    return choice


def print_json(obj: Any) -> None:
    json.dump(to_jsonable(obj), sys.stdout, indent=2, allow_nan=False)
    sys.stdout.write("\n")


def add_long_options(p: argparse.ArgumentParser) -> None:
    """``--long`` (and its column names) for a subcommand that reads a response file."""
    p.add_argument("--long", action="store_true",
                   help="the file is long: one row per answered (respondent, item) pair, columns model,item,score")
    p.add_argument("--long-columns", default="model,item,score", metavar="RESPONDENT,ITEM,SCORE",
                   help="the long file's column names (default model,item,score)")


def read_responses(args: argparse.Namespace, path: str | None = None, *, models: bool = False) -> pd.DataFrame:
    """The response matrix of ``path`` (default ``args.file``, a CSV or ``.csv.gz``): wide, or long with ``--long``.

    A wide file's ``--id-column`` (when the subcommand has it) becomes the index; with ``models=True`` (the
    language-model commands: ``tiny``, ``estimate``, as ``leaderboard``) the one model-name rule of
    :func:`irtbridge.leaderboard.inputs.model_column` applies instead. A long file's respondent column is the
    index, unanswered cells are NaN.
    """
    path = args.file if path is None else path
    if getattr(args, "long", False):
        names = [c.strip() for c in args.long_columns.split(",")]
        if len(names) != 3 or not all(names):
            raise ValidationError(f"--long-columns must be RESPONDENT,ITEM,SCORE, got {args.long_columns!r}")
        if getattr(args, "id_column", None):
            raise ValidationError("--id-column is for wide files; a --long file names respondents in --long-columns")
        from irtbridge.leaderboard.long import responses_from_long  # kept off the CLI's start

        wide = responses_from_long(path, *names).astype(float)
        wide.index.name, wide.columns.name = None, None
        return wide
    from irtbridge.leaderboard.inputs import model_column, read_table  # kept off the CLI's start

    data = read_table(path, "responses") if str(path).endswith(".gz") else read_csv(path, "responses")
    if models:  # one model-name rule for every language-model command
        return model_column(data, getattr(args, "id_column", None), f"responses file {path!r}")
    if getattr(args, "id_column", None):
        require_columns(data, [args.id_column], f"responses file {path!r}")
        data = data.set_index(args.id_column)
    return data


def read_calibration(path: str):
    """A calibration file: what ``Calibration.to_json`` writes, or the ``irtbridge calibrate --json`` object.

    The full file gives a :class:`~irtbridge.calibration.Calibration`; the CLI's shorter object (``model``
    and the ``items`` table) an :class:`~irtbridge.irt.ItemBank`.
    """
    from irtbridge.calibration.results.result import Calibration  # kept off the CLI's start
    from irtbridge.irt import as_item_bank  # kept off the CLI's start (~2 s)

    text = read_text(path, "calibration")  # a BOM accepted, a non-UTF-8 byte named by its line
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"calibration file {path!r} is not JSON: {exc.msg} (line {exc.lineno})") from None
    if isinstance(d, dict) and str(d.get("format", "")).startswith("irtbridge-tiny"):  # a tiny benchmark's bank
        from irtbridge.leaderboard.tiny import load_bank  # kept off the CLI's start (~2 s)

        return load_bank(path)
    if not isinstance(d, dict) or not isinstance(d.get("items"), list) or "model" not in d:
        raise ValidationError(f"calibration file {path!r} has no 'model' and 'items' (write it with "
                              "irtbridge calibrate --json or Calibration.to_json)")
    if "n_parameters" in d:  # the full object (the CLI's --json has items and perhaps standard_errors only)
        return Calibration.from_json(text)
    try:
        items = pd.DataFrame(d["items"]).set_index("item").astype(float)
    except (KeyError, TypeError, ValueError):
        raise ValidationError(f"calibration file {path!r}: its items need an 'item' name and numeric parameters") from None
    items.index = items.index.map(str)
    return as_item_bank(items, d["model"])
