"""The API reference site: built from the docstrings by Sphinx + numpydoc with warnings as errors (what
``make docs`` runs), and ``calibrate``'s page opened in headless Chromium shows its parameters.

The site is built once: where ``make docs`` finished without a warning after the last change to its sources
(``docs/``, ``irtbridge/``, ``vignettes/``), as in CI, which runs it just before the tests, its output is read;
otherwise the tests build it themselves, into a temporary folder."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._chromium import body_attribute, render

ROOT = Path(__file__).resolve().parents[1]
BUILT = ROOT / "docs" / "_build" / "html"
BUILT_OK = BUILT / ".irtbridge-built"  # written by `make docs` after a build without a warning


def _made_by_make_docs() -> Path | None:
    """``make docs``'s output if it was built without a warning after the last change to a source, else None."""
    if not BUILT_OK.is_file():
        return None
    built = BUILT_OK.stat().st_mtime
    for folder in ("docs", "irtbridge", "vignettes"):
        for path in (ROOT / folder).rglob("*"):
            if ("_build" in path.parts or "__pycache__" in path.parts or path.suffix == ".pyc"
                    or path.is_relative_to(ROOT / "docs" / "api" / "generated")):
                continue
            if path.is_file() and path.stat().st_mtime > built:
                return None
    return BUILT


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    import sphinx  # noqa: F401  (make setup installs python3-sphinx: its absence is a setup bug, not a skip)
    made = _made_by_make_docs()
    if made is not None:
        return made
    out = tmp_path_factory.mktemp("docs")
    build = out / "html"
    # autosummary writes its generated stubs into the source tree; a copy keeps the checkout clean
    src = out / "src"
    subprocess.run(["cp", "-r", str(ROOT / "docs"), str(src)], check=True)
    for stale in ("_build", "api/generated"):
        subprocess.run(["rm", "-rf", str(src / stale)], check=True)
    conf = (src / "conf.py").read_text(encoding="utf-8")
    (src / "conf.py").write_text(conf.replace('os.path.abspath("..")', repr(str(ROOT))), encoding="utf-8")
    (src.parent / "vignettes").symlink_to(ROOT / "vignettes")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", str(src),
                           str(build)], capture_output=True, text=True)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return build


@pytest.mark.slow
def test_docs_build_without_warnings_and_cover_the_public_api(site):
    generated = site / "api" / "generated"
    import irtbridge

    # every public name has an entry (its anchor) on some page: its own, or its home module's
    anchors = set()
    for page in generated.glob("*.html"):
        anchors.update(re.findall(r'id="(irtbridge\.[\w.]+)"', page.read_text(encoding="utf-8")))
    for name in irtbridge.__all__:
        if name.startswith("_"):
            continue
        assert any(a == f"irtbridge.{name}" or a.endswith(f".{name}") for a in anchors), f"no reference entry for {name}"
    for guide in ("calibration-modes", "coming-from-r", "references", "vignettes"):
        assert (site / f"{guide}.html").is_file()


@pytest.mark.slow
def test_calibrate_page_in_chromium_shows_its_parameters(site, tmp_path):
    page = site / "api" / "generated" / "irtbridge.calibrate.html"
    shown = render(page, tmp_path, width=1280, height=1600)
    assert body_attribute(shown.dom, "data-probe") == "done"
    text = html.unescape(re.sub(r"<[^>]+>", " ", shown.dom))
    assert "Parameters" in text and "Returns" in text
    import inspect

    import irtbridge

    for param in list(inspect.signature(irtbridge.calibrate).parameters)[:4]:
        assert re.search(rf"\b{re.escape(param)}\b", text), f"calibrate's page does not show parameter {param!r}"


def test_make_docs_output_is_read_only_when_newer_than_every_source(tmp_path, monkeypatch):
    import os

    import tests.test_docs as this

    for folder in ("docs/_build/html", "docs/api/generated", "irtbridge", "vignettes"):
        (tmp_path / folder).mkdir(parents=True)
    monkeypatch.setattr(this, "ROOT", tmp_path)
    monkeypatch.setattr(this, "BUILT", tmp_path / "docs" / "_build" / "html")
    monkeypatch.setattr(this, "BUILT_OK", this.BUILT / ".irtbridge-built")
    source = tmp_path / "irtbridge" / "mod.py"
    source.write_text("x = 1\n")
    assert this._made_by_make_docs() is None  # never built (or a build with a warning: no stamp)
    this.BUILT_OK.touch()
    os.utime(source, (1, 1))
    (tmp_path / "docs" / "api" / "generated" / "page.rst").write_text("made by the build\n")
    assert this._made_by_make_docs() == this.BUILT
    os.utime(source, (this.BUILT_OK.stat().st_mtime + 10,) * 2)  # a source changed after the build
    assert this._made_by_make_docs() is None
