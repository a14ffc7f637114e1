"""The command line reference (``docs/cli.md``), written from the parser itself so the page
cannot drift from the commands: ``python -m toolwire.cli.reference > docs/cli.md``. The
documentation's tests fail when the page and the parser differ."""

from __future__ import annotations

import argparse
import functools

from . import _parser

WIDTH = 96  # the usage lines are wrapped here, whatever the terminal


def markdown() -> str:
    parser = _parser()
    lines = [
        "# Command line reference",
        "",
        "<!-- Generated from the parser by `python -m toolwire.cli.reference > docs/cli.md`;",
        "     edit the parser (src/toolwire/cli), not this page. -->",
        "",
        f"{parser.description} Every command explains itself with `--help`; "
        "`toolwire --version` prints the version.",
        "",
        "```text",
        _usage(parser),
        "```",
        "",
        _prose(parser.epilog or ""),
    ]
    for name, command in _commands(parser).items():
        about = _prose(command.description or "")
        lines += ["", f"## `toolwire {name}`", "", about, "", "```text", _usage(command), "```"]
        rows = [_row(action) for action in command._actions if _documented(action)]
        if rows:
            lines += ["", "| Argument | What it is | Default |", "| --- | --- | --- |", *rows]
    return "\n".join(lines) + "\n"


def _usage(parser: argparse.ArgumentParser) -> str:
    parser.formatter_class = functools.partial(argparse.HelpFormatter, width=WIDTH)
    return parser.format_usage().strip()


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _documented(action: argparse.Action) -> bool:
    return action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)


def _row(action: argparse.Action) -> str:
    if action.option_strings:
        name = ", ".join(action.option_strings)
        takes_value = action.nargs != 0
        if takes_value:
            name += " " + str(action.metavar or _choices(action) or action.dest.upper())
    else:
        name = str(action.metavar or action.dest)
    default = action.default
    shown = "" if default in (None, False, [], argparse.SUPPRESS) else f"`{default}`"
    choices = _choices(action) if action.option_strings and action.metavar else None
    text = (action.help or "") + (f"; one of {choices}" if choices else "")
    name = name.replace("|", "\\|")  # inside code, only the pipe needs escaping in a table
    return f"| `{name}` | {_cell(text)} | {shown} |"


def _choices(action: argparse.Action) -> str | None:
    return "{" + ",".join(map(str, action.choices)) + "}" if action.choices else None


def _cell(text: str) -> str:
    return _prose(text).replace("|", "\\|").replace("\n", " ")


def _prose(text: str) -> str:
    """``text`` as Markdown shows it: a ``<file>`` is not an HTML tag."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


if __name__ == "__main__":
    print(markdown(), end="")
