"""Render a local HTML page in Debian's headless Chromium: a screenshot and the DOM after load.

Shared by the report and evaluate tests. The page under test is copied with a small script appended that,
once every image has loaded, records on <body> how many images there are and how many failed to decode;
the report itself carries no script.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"

_PROBE = """<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var broken = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); }).length;
  document.body.setAttribute('data-images', String(imgs.length));
  document.body.setAttribute('data-broken-images', String(broken));
  // layout at the window's width: how far the page overflows sideways, tables wider than the viewport,
  // and boxes that hide part of their content behind a scroll bar or a clip
  var vw = document.documentElement.clientWidth;
  document.body.setAttribute('data-page-overflow', String(document.documentElement.scrollWidth - vw));
  var wide = Array.prototype.slice.call(document.querySelectorAll('table')).filter(function (t) {
    return t.getBoundingClientRect().right > vw + 1; }).length;
  document.body.setAttribute('data-wide-tables', String(wide));
  var clipped = Array.prototype.slice.call(document.querySelectorAll('body *')).filter(function (e) {
    var s = getComputedStyle(e);
    return (s.overflowY !== 'visible' || s.overflowX !== 'visible') &&
           (e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1); }).length;
  document.body.setAttribute('data-clipped', String(clipped));
  document.body.setAttribute('data-probe', 'done');
});
</script>"""

_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
]


@dataclass(frozen=True)
class Rendered:
    screenshot: Path
    dom: str
    console: list[str]


def render(page: Path, workdir: Path, *, width: int = 1200, height: int = 3000) -> Rendered:
    """Screenshot ``page`` and dump its DOM after the load event: one Chromium run (a fresh profile) does both,
    at one window size, so the probe measures the layout the screenshot shows."""
    probe = page.with_name(page.stem + ".probe.html")
    text = page.read_text(encoding="utf-8")
    probe.write_text(text.replace("</body>", _PROBE + "\n</body>"), encoding="utf-8")
    shot = workdir / "screenshot.png"
    profile = Path(tempfile.mkdtemp(prefix="chromium-profile-", dir=workdir))
    try:
        proc = subprocess.run(
            [CHROMIUM, *_FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}", "--dump-dom",
             f"--window-size={width},{height}", probe.resolve().as_uri()],
            capture_output=True, text=True, timeout=300,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert shot.is_file() and "<body" in proc.stdout, "Chromium wrote no screenshot or no DOM: " + proc.stderr[-3000:]
    console = [ln for ln in proc.stderr.splitlines() if "CONSOLE" in ln]
    return Rendered(screenshot=shot, dom=proc.stdout, console=console)


def body_attribute(dom: str, name: str) -> str | None:
    m = re.search(r"<body[^>]*\s" + re.escape(name) + r'="([^"]*)"', dom)
    return m.group(1) if m else None
