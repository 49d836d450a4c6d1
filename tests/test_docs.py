"""The API reference site: built from the docstrings by Sphinx + numpydoc with warnings as errors (what
``make docs`` runs), and ``calibrate``'s page opened in headless Chromium shows its parameters."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests._chromium import body_attribute, render

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    import sphinx  # noqa: F401  (make setup installs python3-sphinx: its absence is a setup bug, not a skip)
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

    for name in irtbridge.__all__:
        if name.startswith("_"):
            continue
        page = generated / f"irtbridge.{name}.html"
        module_page = any(generated.glob(f"irtbridge.*.{name}.html"))
        assert page.is_file() or module_page, f"no reference page for irtbridge.{name}"
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
