"""`irtbridge doctor`: is everything irtbridge needs present, at the pinned versions?"""

from __future__ import annotations

import platform
from importlib import metadata
from pathlib import Path
from typing import Any

from irtbridge._constraints import Flag, constraints
from irtbridge import __version__
from irtbridge._r import session
from irtbridge.exceptions import IrtBridgeError

__all__ = ["doctor", "locked_r_packages", "DIRECT_R_PACKAGES"]

LOCK_FILE = Path(__file__).resolve().parent / "R" / "packages.lock"
# the R packages irtbridge calls or loads data from; the rest of the lock file are their dependencies
DIRECT_R_PACKAGES = ("mirt", "ltm", "EstCRM", "catR", "PlayerRatings", "airt", "mlbench", "caret",
                     "nanoparquet")


def locked_r_packages(path: Path = LOCK_FILE) -> dict[str, dict[str, str]]:
    """The lock file as ``{package: {"version", "source", "debian"}}``."""
    rows: dict[str, dict[str, str]] = {}
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln and not ln.startswith("#")]
    header = lines[0].split("\t")
    for ln in lines[1:]:
        row = dict(zip(header, ln.split("\t")))
        rows[row["package"]] = row
    return rows


def _same_version(a: str, b: str) -> bool:
    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(x) for x in v.replace("-", ".").split(".") if x.isdigit())

    return parts(a) == parts(b)


def _py_version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


@constraints(all_packages=Flag())
def doctor(all_packages: bool = False) -> dict[str, Any]:
    """Check the runtime. Returns ``{"ok", "python": {...}, "r": {...}, "r_packages": [...]}``.

    Each R package row is ``{"package", "pinned", "installed", "status"}`` with status ``OK``,
    ``MISSING`` or ``WRONG VERSION``.

    Parameters
    ----------
    all_packages : bool, default False
        Check every package of the lock file (dependencies included), not only the ones irtbridge calls or
        loads data from.

    Returns
    -------
    dict of str to Any
        The report described above (``ok`` is True when every row is ``OK``).
    """
    report: dict[str, Any] = {
        "irtbridge": __version__,
        "python": {
            "python": platform.python_version(),
            "numpy": _py_version("numpy"),
            "pandas": _py_version("pandas"),
            "scipy": _py_version("scipy"),
            "scikit-learn": _py_version("scikit-learn"),
            "rpy2": _py_version("rpy2"),
        },
    }
    lock = locked_r_packages()
    names = list(lock) if all_packages else [p for p in DIRECT_R_PACKAGES if p in lock]
    r_error = None
    try:
        versions = session.r_versions(names)
        report["r"] = {"version": versions["r"], "status": "OK"}
        installed = versions["packages"]
    except IrtBridgeError as exc:
        r_error = str(exc)
        report["r"] = {"version": None, "status": "MISSING", "error": r_error}
        installed = {p: None for p in names}
    rows = []
    for p in names:
        pinned = lock[p]["version"]
        have = installed.get(p)
        status = "MISSING" if have is None else ("OK" if _same_version(have, pinned) else "WRONG VERSION")
        rows.append({"package": p, "pinned": pinned, "installed": have, "status": status, "source": lock[p]["source"]})
    report["r_packages"] = rows
    report["ok"] = (
        r_error is None and report["python"]["rpy2"] is not None and all(r["status"] == "OK" for r in rows)
    )
    return report
