"""The built docs in a real browser, offline: headless Chromium with the network disabled.

The docs are built into a temporary directory (``sphinx-build -b html``; the strict ``-W``
build is ``make docs``'s job), or taken from ``$ATTNBOUNDS_DOCS_HTML`` when that is set. A
copy of every page under test gets one probe script (``browser_probe.js``) appended; Chromium
loads it from disk at 800 px and at 1300 px and prints the DOM after the scripts have run, and
the probe's report in it says what a reader sees:

- the math has been typeset: every ``.math`` element holds a MathJax element, MathJax reported
  no TeX error, and no ``\\frac``, ``\\[``, ``\\(``, ``$$`` ... remains as text outside code;
- every ``<img>`` resolves to a file in the build and has loaded;
- every cell of the key columns of a table (Reading/Check, Verdict, Methods) lies inside the
  viewport and inside any scrolling wrapper, and the page itself does not scroll sideways;
- nothing was fetched from anywhere but the build (and no page references a CDN).

Without Chromium these tests fail with one line saying how to install it; they never skip.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PROBE = Path(__file__).with_name("browser_probe.js")
WIDTHS = (800, 1300)
HEIGHT = 1000
# Every claim page, the claims index, the site index and the experiments page.
PAGES = ["index", "experiments", "claims/index"] + sorted(
    f"claims/{p.stem}" for p in (DOCS / "claims").glob("*.md") if p.stem != "index"
)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
NO_CHROMIUM = (
    "headless Chromium not found (tried $ATTNBOUNDS_CHROMIUM, " + ", ".join(CHROMIUM_NAMES) + "): "
    "install it with `apt-get install -y chromium` (.ci/run does this when it is missing)"
)


# --------------------------------------------------------------------------- the build


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    given = os.environ.get("ATTNBOUNDS_DOCS_HTML")
    if given:
        out = Path(given).resolve()
        if not (out / "index.html").is_file():
            pytest.fail(f"ATTNBOUNDS_DOCS_HTML={given}: no index.html there; build the docs first (make docs)")
        return out
    out = tmp_path_factory.mktemp("docs-html")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-d", str(out / ".doctrees"), str(DOCS), str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        pytest.fail(f"sphinx-build failed (exit {proc.returncode}): {last}")
    return out


def _chromium() -> str:
    candidates = [os.environ.get("ATTNBOUNDS_CHROMIUM", "")] + list(CHROMIUM_NAMES)
    for name in candidates:
        path = shutil.which(name) if name else None
        if path:
            return path
    pytest.fail(NO_CHROMIUM, pytrace=False)


class _Assets(HTMLParser):
    """Every URL a page makes the browser fetch (not the links a reader may follow)."""

    FETCHED = {
        "script": ("src",),
        "img": ("src", "srcset"),
        "source": ("src", "srcset"),
        "iframe": ("src",),
        "audio": ("src",),
        "video": ("src", "poster"),
        "embed": ("src",),
        "object": ("data",),
        "input": ("src",),
    }
    FETCHED_REL = {"stylesheet", "icon", "shortcut", "preload", "modulepreload", "prefetch", "manifest", "apple-touch-icon"}

    def __init__(self):
        super().__init__()
        self.urls: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        names = self.FETCHED.get(tag, ())
        if tag == "link" and self.FETCHED_REL & set((attrs.get("rel") or "").lower().split()):
            names = ("href",)
        for name in names:
            value = attrs.get(name)
            if not value:
                continue
            for part in value.split(",") if name == "srcset" else [value]:
                url = part.strip().split(" ")[0]
                if url:
                    self.urls.append((tag, url))


def _assets(html: Path) -> list[tuple[str, str]]:
    parser = _Assets()
    parser.feed(html.read_text(encoding="utf-8"))
    return parser.urls


def _is_remote(url: str) -> bool:
    return bool(re.match(r"^(https?:)?//", url.strip(), re.IGNORECASE))


# --------------------------------------------------------------------------- the browser


def _probe_copy(site: Path, dest: Path) -> Path:
    """A copy of the build with the probe appended to the pages under test (nothing else changes)."""
    if dest.exists():
        return dest
    shutil.copytree(site, dest, ignore=shutil.ignore_patterns(".doctrees"))
    probe = "<script>\n" + PROBE.read_text(encoding="utf-8") + "\n</script>\n"
    for page in PAGES:
        html = dest / f"{page}.html"
        if html.is_file():
            text = html.read_text(encoding="utf-8")
            at = text.rfind("</body>")
            html.write_text(text[:at] + probe + text[at:] if at >= 0 else text + probe, encoding="utf-8")
    return dest


def _load(chromium: str, html: Path, width: int, profile: Path) -> dict:
    """Load one page offline at ``width`` px; the probe's report, or {"error": ...}."""
    profile.mkdir(parents=True, exist_ok=True)
    cmd = [
        chromium,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--mute-audio",
        f"--user-data-dir={profile}",
        # The network is off: no name resolves, and every request goes to a closed port.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--proxy-server=http://127.0.0.1:9",
        "--proxy-bypass-list=<-loopback>",
        f"--window-size={width},{HEIGHT}",
        "--hide-scrollbars",
        "--virtual-time-budget=30000",
        "--dump-dom",
        html.as_uri(),
    ]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return {"error": f"Chromium did not finish loading {html.name} at {width} px within 120 s"}
    m = re.search(r'<script type="application/json" id="attnbounds-browser-report">(.*?)</script>', proc.stdout, re.S)
    if not m:
        tail = (proc.stderr.strip().splitlines() or ["(no stderr)"])[-1]
        return {"error": f"no probe report from Chromium (exit {proc.returncode}) for {html.name} at {width} px: {tail}"}
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def reports(site, tmp_path_factory) -> dict:
    """The probe's report for every (page, width), from one Chromium run each, two at a time."""
    chromium = _chromium()
    tmp = tmp_path_factory.mktemp("browser")
    copy = _probe_copy(site, tmp / "site")
    jobs = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for page in PAGES:
            html = copy / f"{page}.html"
            for width in WIDTHS:
                if html.is_file():
                    profile = tmp / "profiles" / f"{page.replace('/', '-')}-{width}"
                    jobs[page, width] = pool.submit(_load, chromium, html, width, profile)
    return {key: job.result() for key, job in jobs.items()}


def _report(reports, site, page, width) -> dict:
    if not (site / f"{page}.html").is_file():
        pytest.fail(f"the build has no {page}.html")
    rep = reports[page, width]
    if rep.get("error") and "math" not in rep:
        pytest.fail(rep["error"])
    assert rep["error"] is None, rep["error"]
    assert rep["inner_width"] == width, f"Chromium opened a {rep['inner_width']} px viewport, not {width} px"
    return rep


CASES = [pytest.param(page, width, id=f"{page}-{width}") for page in PAGES for width in WIDTHS]


# --------------------------------------------------------------------------- the tests


def test_chromium_is_installed():
    """One clear line when the browser is missing, never a skip."""
    assert Path(_chromium()).exists()


def test_no_page_references_a_cdn(site):
    """Every script, stylesheet, font and image the HTML (and its CSS) loads comes from the build."""
    remote = []
    for html in sorted(site.rglob("*.html")):
        for tag, url in _assets(html):
            if _is_remote(url):
                remote.append(f"{html.relative_to(site)}: <{tag}> {url}")
    for css in sorted(site.rglob("*.css")):
        for url in re.findall(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""", css.read_text(encoding="utf-8", errors="replace")):
            if _is_remote(url):
                remote.append(f"{css.relative_to(site)}: {url}")
    assert not remote, f"{len(remote)} references to remote assets, first: " + "; ".join(sorted(set(remote))[:5])


@pytest.mark.parametrize("page", PAGES)
def test_every_image_resolves_to_a_file_in_the_build(site, page):
    html = site / f"{page}.html"
    if not html.is_file():
        pytest.fail(f"the build has no {page}.html")
    missing = []
    for tag, url in _assets(html):
        if tag not in ("img", "source") or url.startswith("data:"):
            continue
        parts = urlsplit(url)
        target = (html.parent / unquote(parts.path)).resolve()
        if parts.scheme or parts.netloc or not target.is_file() or site.resolve() not in target.parents:
            missing.append(url)
    assert not missing, f"{page}.html: images that are not files in the build: {missing}"


@pytest.mark.parametrize(("page", "width"), CASES)
def test_math_is_typeset(reports, site, page, width):
    rep = _report(reports, site, page, width)
    math = rep["math"]
    problems = []
    if math["untypeset"]:
        problems.append(f"{len(math['untypeset'])} of {math['math_elements']} formulas not typeset, first: {math['untypeset'][0]!r}")
    if math["math_elements"] and not math["renderer_elements"]:
        problems.append("no MathJax element on the page")
    if math["errors"]:
        problems.append(f"MathJax errors: {math['errors'][:3]}")
    if math["raw_tex"]:
        problems.append(f"{len(math['raw_tex'])} raw TeX texts visible, first: {math['raw_tex'][0]!r}")
    assert not problems, f"{page} at {width} px: " + "; ".join(problems)


@pytest.mark.parametrize(("page", "width"), CASES)
def test_images_load(reports, site, page, width):
    rep = _report(reports, site, page, width)
    bad = [i["src"] for i in rep["images"] if not i["loaded"] or not i["url"].startswith("file:")]
    assert not bad, f"{page} at {width} px: images that did not load from the build: {bad}"


@pytest.mark.parametrize(("page", "width"), CASES)
def test_key_columns_are_visible(reports, site, page, width):
    """Reading/Check, Verdict and Methods cells lie inside the viewport and any scroll box."""
    rep = _report(reports, site, page, width)
    outside = [c for c in rep["key_cells"] if not c["inside"]]
    detail = "; ".join(
        f"[{c['where']}] {c['column']} {c['text']!r} spans {c['left']}..{c['right']} px, visible {c['visible_left']}..{c['visible_right']}"
        for c in outside[:3]
    )
    assert not outside, f"{page} at {width} px: {len(outside)} of {len(rep['key_cells'])} key cells cut off: {detail}"
    assert rep["scroll_width"] <= rep["client_width"] + 1, (
        f"{page} at {width} px: the page scrolls sideways ({rep['scroll_width']} px wide in a {rep['client_width']} px viewport)"
    )


@pytest.mark.parametrize(("page", "width"), CASES)
def test_nothing_is_fetched_from_the_network(reports, site, page, width):
    rep = _report(reports, site, page, width)
    remote = [u for u in rep["resources"] if not u.startswith(("file:", "data:", "blob:"))]
    assert not remote, f"{page} at {width} px: fetched from outside the build: {remote[:5]}"


class _Links(HTMLParser):
    """The ``href`` of every ``<a>`` and every ``id``/``name`` a page defines."""

    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if attrs.get(key):
                self.ids.add(attrs[key])
        if tag == "a" and attrs.get("href") is not None:
            self.hrefs.append(attrs["href"])


def test_internal_links_and_anchors_resolve(site):
    """Every link inside the site points at a file of the build and, with ``#x``, at an element ``id="x"``."""
    parsed: dict[Path, _Links] = {}

    def links(path: Path) -> _Links:
        if path not in parsed:
            parser = _Links()
            parser.feed(path.read_text(encoding="utf-8"))
            parsed[path] = parser
        return parsed[path]

    broken = []
    pages = [p for p in sorted(site.rglob("*.html")) if "_static" not in p.relative_to(site).parts]
    for page in pages:
        for href in links(page).hrefs:
            parts = urlsplit(href)
            if parts.scheme or parts.netloc:
                continue  # external (http, mailto, ...): not checked here, and never fetched offline
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: {href} (no such file)")
            elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in links(target).ids:
                broken.append(f"{page.relative_to(site)}: {href} (no element with that id)")
    assert pages and not broken, f"{len(broken)} broken internal links, first: " + "; ".join(broken[:5])
