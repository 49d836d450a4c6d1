"""The ``--from`` option of every command that reads responses, and ``ingest``'s format, from the reader registry.

The names come from :data:`irtbridge.leaderboard.readers.registry.READERS`, looked up only when argparse
needs them (parsing the option, printing help), so the command line starts without loading the readers.
"""

from __future__ import annotations

import argparse
from typing import Iterator

__all__ = ["FormatChoices", "add_from_option"]


class FormatChoices:
    """argparse ``choices``: a few fixed names (``csv``, ``auto``, ...) then every registered format.

    Parameters
    ----------
    fixed : tuple of str
        The command's own names, before the formats.
    """

    def __init__(self, fixed: tuple[str, ...] = ()) -> None:
        self.fixed = fixed

    def _names(self) -> tuple[str, ...]:
        from irtbridge.leaderboard.readers.registry import FORMAT_NAMES  # kept off the CLI's start (~2 s)

        return self.fixed + FORMAT_NAMES

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


def add_from_option(p: argparse.ArgumentParser, default: str, fixed: tuple[str, ...], what: str) -> None:
    """Add ``--from`` (dest ``source``) taking ``fixed`` names and every registered format.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser.
    default : str
        The default (one of ``fixed``).
    fixed : tuple of str
        The command's own names (``csv``; ``auto``, ``matrix``, ``long``).
    what : str
        The help text's start: what the default reads.
    """
    # metavar given: argparse then looks at the choices only to parse or print help (%(choices)s), so the
    # registry is imported when --from is used, not when the command line starts
    p.add_argument("--from", dest="source", default=default, choices=FormatChoices(fixed), metavar="FORMAT",
                   help=f"{what}; or the format of harness output, one of: %(choices)s")
