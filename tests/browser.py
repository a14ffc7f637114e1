"""Helpers for tests that drive the inspector page in a real headless Chromium (Playwright).

* :func:`launch_chromium` starts the Debian ``chromium`` (no download, no network services);
  without it a test is skipped locally and fails on CI (where it is installed). The inspector
  itself runs as a real ``toolwire dev`` subprocess (tests/inspector_process.py).
* :func:`fresh_page` opens a page in a new context; :class:`PageErrors` collects its uncaught
  errors and console errors, so a page that throws fails its test.
* :func:`decode_png` reads a screenshot with the standard library only, so a test can check
  that a render is real (size, colours) without an imaging dependency.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import struct
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

STATIC = Path(__file__).resolve().parents[1] / "src" / "toolwire" / "inspector" / "static"
WAIT_MS = 10_000  # Playwright's timeout for each wait, per page
VIEWPORT = {"width": 1280, "height": 800}
ERROR_BACKGROUND = (0xFD, 0xEC, 0xEA)  # --error-soft in inspector.css

PLAYWRIGHT_MISSING = (
    "playwright is not installed; install it with: .venv/bin/python -m pip install -e '.[test]'"
)

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def chromium_path() -> str | None:
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None


def require_playwright() -> None:
    """For a module of browser tests: skip it without playwright (fail on CI, which installs
    the test extra that has it)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(PLAYWRIGHT_MISSING, allow_module_level=True)


def require_chromium() -> str:
    """The chromium executable; skip the test without it (fail on CI, which installs it)."""
    path = chromium_path()
    if path is None:
        message = "chromium is not installed; install it with: apt-get install chromium"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    require_playwright()
    return path


@contextlib.contextmanager
def launch_chromium() -> Iterator[Any]:
    """A headless Chromium browser for the duration of the block."""
    executable = require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=CHROMIUM_ARGS, headless=True, timeout=30_000
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class PageErrors:
    """Uncaught exceptions and console errors of one page."""

    errors: list[str] = field(default_factory=list)

    def watch(self, page: Any) -> None:
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.on(
            "console",
            lambda message: (
                self.errors.append(f"console {message.type}: {message.text}")
                if message.type == "error"
                else None
            ),
        )


@contextlib.contextmanager
def fresh_page(
    browser: Any, viewport: dict[str, int], timeout_ms: int, expected: tuple[str, ...] = ()
) -> Iterator[Any]:
    """A page in a new browser context (no shared storage); fails if the page reported an
    uncaught error or a console error while it was open, other than those that contain one
    of ``expected`` (the refused requests a test causes on purpose) or a refused connection
    (a page whose inspector stopped before it was closed asks why, and Chromium logs it)."""
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(timeout_ms)
    page = context.new_page()
    errors = PageErrors()
    errors.watch(page)
    try:
        yield page
    finally:
        context.close()
    unexpected = [
        error
        for error in errors.errors
        if not (
            error.startswith("console")
            and any(text in error for text in (*expected, "net::ERR_CONNECTION_REFUSED"))
        )
    ]
    assert unexpected == [], f"the page reported errors: {unexpected}"


# ---------------------------------------------------------------------------- screenshots


@dataclass
class Png:
    width: int
    height: int
    channels: int
    pixels: bytes  # rows of width * channels bytes, no filter bytes

    def colour_counts(self) -> Counter[tuple[int, int, int]]:
        """How many pixels have each (r, g, b) colour (alpha ignored)."""
        data, step = self.pixels, self.channels
        return Counter(zip(data[0::step], data[1::step], data[2::step], strict=True))


def decode_png(data: bytes) -> Png:
    """Decode an 8-bit RGB/RGBA, non-interlaced PNG (what Chromium's screenshots are)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    offset, idat, header = 8, bytearray(), None
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        body = data[offset + 8 : offset + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        offset += 12 + length
    assert header is not None, "no IHDR chunk"
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unsupported PNG {header}"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(bytes(idat))
    stride = width * channels
    out = bytearray(stride * height)
    previous = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        line = _unfilter(kind, bytearray(raw[start + 1 : start + 1 + stride]), previous, channels)
        out[y * stride : (y + 1) * stride] = line
        previous = bytes(line)
    return Png(width, height, channels, bytes(out))


def _unfilter(kind: int, line: bytearray, previous: bytes, bpp: int) -> bytearray:
    if kind == 0:
        return line
    if kind == 2:  # Up: bytewise sums, done on big integers without carries between bytes
        return bytearray(_add_bytes(bytes(line), previous))
    n = len(line)
    if kind == 1:  # Sub
        for i in range(bpp, n):
            line[i] = (line[i] + line[i - bpp]) & 0xFF
    elif kind == 3:  # Average
        for i in range(n):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
    elif kind == 4:  # Paeth
        for i in range(n):
            a = line[i - bpp] if i >= bpp else 0
            b = previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (line[i] + predictor) & 0xFF
    else:
        raise AssertionError(f"bad PNG filter type {kind}")
    return line


def _add_bytes(a: bytes, b: bytes) -> bytes:
    """(a[i] + b[i]) mod 256 for every byte, in a few big-integer operations."""
    n = len(a)
    low = int.from_bytes(b"\x7f" * n, "big")
    high = int.from_bytes(b"\x80" * n, "big")
    x, y = int.from_bytes(a, "big"), int.from_bytes(b, "big")
    total = ((x & low) + (y & low)) ^ ((x ^ y) & high)
    return total.to_bytes(n, "big")


def distinct_colours(png: Png) -> int:
    return len(png.colour_counts())


def pixels_near(png: Png, colour: tuple[int, int, int], tolerance: int = 6) -> int:
    """How many pixels are within ``tolerance`` of ``colour`` in each channel."""
    return sum(
        count
        for (r, g, b), count in png.colour_counts().items()
        if max(abs(r - colour[0]), abs(g - colour[1]), abs(b - colour[2])) <= tolerance
    )


def dev_on_copy(source: Path, folder: Path, *options: str) -> Any:
    """``toolwire dev`` on a copy of ``source`` in ``folder``: the inspector restarts its
    server when a file beside it changes, so other tests' files must not be there."""
    from inspector_process import start_inspector

    shutil.copy(source, folder / source.name)
    return start_inspector(source.name, *options, cwd=folder)
