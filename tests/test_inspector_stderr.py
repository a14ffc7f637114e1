"""How the inspector reads a server's stderr (toolwire/inspector/stderr.py): lines grouped into
records, a log message and its traceback being one; a traceback read into frames, the
developer's own told from toolwire's, the standard library's and installed packages'; the
reference id of a masked error found in its message and in the call's error. Real tracebacks,
formatted by Python from real exceptions; no event loop."""

from __future__ import annotations

import asyncio
import traceback

import toolwire.tools
from toolwire.inspector.stderr import Records, is_own, masked_reference, read_traceback


def lookup() -> dict[str, int]:
    return {}["x"]


async def crash() -> dict[str, int]:
    return lookup()


def formatted(run: object) -> list[str]:
    """The lines Python prints for the exception ``run()`` raises."""
    try:
        run()  # type: ignore[operator]
    except Exception as exc:
        return "".join(traceback.format_exception(exc)).rstrip("\n").split("\n")
    raise AssertionError("it did not raise")


def chained() -> None:
    try:
        lookup()
    except KeyError as exc:
        raise RuntimeError("lookup failed") from exc


def texts(records: Records, lines: list[str]) -> list[list[str]]:
    return [record.lines for record in records.feed(lines)]


def test_a_log_message_and_its_traceback_are_one_record() -> None:
    frames = formatted(lambda: asyncio.run(crash()))
    header = "2026-01-01 12:00:00,000 ERROR toolwire: Tool 'crash' failed (reference 0a1b2c3d)"
    lines = ["starting", header, *frames, "next message"]
    assert texts(Records(), lines) == [["starting"], [header, *frames], ["next message"]]


def test_chained_tracebacks_and_lines_that_come_later_stay_in_their_record() -> None:
    records = Records()
    lines = ["failed (reference 0a1b2c3d)", *formatted(chained)]
    assert "The above exception was the direct cause of the following exception:" in lines
    half = len(lines) // 2
    (first,) = records.feed(lines[:half])
    (again, after) = records.feed([*lines[half:], "plain"])
    assert again is first and first.lines == lines
    assert after.lines == ["plain"]
    # A traceback Python printed itself (no log message before it) is one record too, and
    # a traceback without the sentence that chains it begins a record of its own.
    uncaught = formatted(lookup)
    assert texts(Records(), [*uncaught, *uncaught, "b"]) == [uncaught, uncaught, ["b"]]


def test_plain_lines_stay_apart() -> None:
    assert texts(Records(), ["one", "two", "", "Traceback is a word"]) == [
        ["one"],
        ["two"],
        [""],
        ["Traceback is a word"],
    ]


def test_the_frames_of_a_traceback_the_developers_own_marked() -> None:
    header = "ERROR toolwire: Tool 'crash' failed (reference 0a1b2c3d)"
    read = read_traceback([header, *formatted(lambda: asyncio.run(crash()))])
    assert read is not None
    assert read["reference"] == "0a1b2c3d"
    assert read["exception"] == "KeyError: 'x'"
    own = [frame for frame in read["frames"] if frame["own"]]
    assert [frame["name"] for frame in own] == ["formatted", "<lambda>", "crash", "lookup"]
    assert {frame["file"] for frame in own} == {__file__}
    asyncio_frames = [frame for frame in read["frames"] if "asyncio" in frame["file"]]
    assert asyncio_frames and not any(frame["own"] for frame in asyncio_frames)
    lookup_frame = read["frames"][-1]
    assert lookup_frame["file"] == __file__ and lookup_frame["name"] == "lookup"
    assert lookup_frame["text"].split("\n")[1].strip() == 'return {}["x"]'
    assert read["text"].startswith("Traceback (most recent call last):")
    assert read["text"].endswith("KeyError: 'x'")


def test_a_chained_traceback_reads_the_exception_raised_last() -> None:
    read = read_traceback(["failed (reference 0a1b2c3d)", *formatted(chained)])
    assert read is not None
    assert read["exception"] == "RuntimeError: lookup failed"
    assert [frame["name"] for frame in read["frames"]] == ["formatted", "chained"]
    assert "KeyError: 'x'" in read["text"]  # the cause stays in the whole text
    assert read_traceback(["no traceback here"]) is None


def test_only_the_developers_files_are_their_own() -> None:
    assert is_own(__file__)
    assert not is_own(toolwire.tools.__file__)
    assert not is_own(asyncio.__file__)
    assert not is_own("/srv/app/.venv/lib/python3.12/site-packages/httpx/_client.py")
    assert not is_own("<frozen runpy>")


def test_the_reference_of_a_masked_error() -> None:
    masked = "Tool 'crash' failed with an internal error (reference 0a1b2c3d)"
    result = {"isError": True, "content": [{"type": "text", "text": masked}]}
    assert masked_reference(result, None) == "0a1b2c3d"
    assert masked_reference({**result, "isError": False}, None) is None
    assert masked_reference(None, "Resource read failed (reference 99aa00ff)") == "99aa00ff"
    assert masked_reference({"isError": True, "content": "not a list"}, None) is None
