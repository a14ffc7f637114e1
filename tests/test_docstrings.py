from __future__ import annotations

import dataclasses

import pytest

from toolwire.functions.docstrings import Docstring, parse_docstring


def test_empty_and_none() -> None:
    assert parse_docstring(None) == Docstring(None, {}, None)
    assert parse_docstring("") == Docstring(None, {}, None)
    assert parse_docstring("   \n  \n") == Docstring(None, {}, None)


def test_one_line() -> None:
    assert parse_docstring("  Add two numbers together.  ") == Docstring(
        "Add two numbers together.", {}, None
    )


def test_docstring_is_frozen() -> None:
    doc = parse_docstring("x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.description = "y"  # type: ignore[misc]


def test_plain_multiline_is_cleaned() -> None:
    doc = parse_docstring(
        """Summary line.

        Body paragraph one,
            indented detail.

        Body paragraph two.
        """
    )
    assert doc == Docstring(
        "Summary line.\n\nBody paragraph one,\n    indented detail.\n\nBody paragraph two.",
        {},
        None,
    )


def test_google_style() -> None:
    doc = parse_docstring(
        """Search for users in the database.

        Looks at names and emails.

        Args:
            query: Search term to match against
                user names or emails
            limit (int, optional): Maximum number of results
            mapping (dict(str, int)): Weights: per field.
            *args: Extra positional values.
            **kwargs: Extra options.
            undocumented:

        Returns:
            list[str]: The matching user names.

        Raises:
            ValueError: If the query is empty.

        Examples:
            >>> search_users("bob")
        """
    )
    assert doc.description == "Search for users in the database.\n\nLooks at names and emails."
    assert doc.params == {
        "query": "Search term to match against user names or emails",
        "limit": "Maximum number of results",
        "mapping": "Weights: per field.",
        "args": "Extra positional values.",
        "kwargs": "Extra options.",
    }
    assert doc.returns == "The matching user names."


@pytest.mark.parametrize(
    "header", ["Args", "Arguments", "Parameters", "Params", "Keyword Args", "args"]
)
def test_google_header_variants(header: str) -> None:
    doc = parse_docstring(f"Do it.\n\n{header}:\n    x: The x.\n")
    assert doc == Docstring("Do it.", {"x": "The x."}, None)


def test_google_description_on_next_line_and_unindented_continuation() -> None:
    doc = parse_docstring(
        """Do it.

        Args:
            x:
                The x,
                on two lines.
            y: The y which
            wraps badly.
        """
    )
    assert doc.params == {"x": "The x, on two lines.", "y": "The y which wraps badly."}


def test_google_returns_inline_and_plain() -> None:
    assert parse_docstring("Sum.\n\nReturns: the sum of a and b\n").returns == "the sum of a and b"
    doc = parse_docstring("Sum.\n\nReturns:\n    The sum: a plus b.\n")
    assert doc == Docstring("Sum.", {}, "The sum: a plus b.")
    assert parse_docstring("Sum.\n\nYields:\n    int: Numbers.\n").returns == "Numbers."


def test_google_text_after_a_section_stays_in_description() -> None:
    doc = parse_docstring("Summary.\n\nArgs:\n    a: The a.\n\nClosing words.\n")
    assert doc == Docstring("Summary.\n\nClosing words.", {"a": "The a."}, None)


def test_admonitions_and_prose_with_colons_stay() -> None:
    text = "Delete a file.\n\nNote: this cannot be undone.\n\nWarning:\n    Really.\n\nExample:\nnot indented, so prose"
    assert parse_docstring(text) == Docstring(text, {}, None)


def test_only_sections_gives_no_description() -> None:
    assert parse_docstring("\n    Args:\n        a: The a.\n    ") == Docstring(
        None, {"a": "The a."}, None
    )


def test_numpy_style() -> None:
    doc = parse_docstring(
        """Compute a weighted value.

        Parameters
        ----------
        x : int
            The x value,
            over two lines.
        y, z : float
            Coordinates.
        flag
            A flag without a type.
        *args : tuple
            Extras.

        Returns
        -------
        float
            The weighted value.

        Raises
        ------
        ValueError
            When x is negative.

        Examples
        --------
        >>> compute(1, 2.0, 3.0)
        """
    )
    assert doc.description == "Compute a weighted value."
    assert doc.params == {
        "x": "The x value, over two lines.",
        "y": "Coordinates.",
        "z": "Coordinates.",
        "flag": "A flag without a type.",
        "args": "Extras.",
    }
    assert doc.returns == "The weighted value."


def test_numpy_returns_without_description_and_notes_kept() -> None:
    doc = parse_docstring("Compute.\n\nReturns\n-------\nint\n\nNotes\n-----\nFast.\n")
    assert doc == Docstring("Compute.\n\nNotes\n-----\nFast.", {}, "int")


def test_rest_style() -> None:
    doc = parse_docstring(
        """Fetch a page.

        Follows redirects.

        :param url: The address
            to fetch.
        :param int timeout: Seconds to wait.
        :param dict(str, str) headers: Extra headers.
        :type url: str
        :keyword retries: How often to retry.
        :returns: The page body.
        :rtype: str
        :raises ValueError: On a bad address.
        """
    )
    assert doc == Docstring(
        "Fetch a page.\n\nFollows redirects.",
        {
            "url": "The address to fetch.",
            "timeout": "Seconds to wait.",
            "headers": "Extra headers.",
            "retries": "How often to retry.",
        },
        "The page body.",
    )


def test_rest_unknown_field_stays_in_description() -> None:
    doc = parse_docstring("Thing.\n\n:custom: value\n:return: it\n")
    assert doc == Docstring("Thing.\n\n:custom: value", {}, "it")


def test_first_line_on_opening_quotes_and_indented_rest() -> None:
    doc = parse_docstring(
        "Summary here.\n    Args:\n        a: The a.\n    Returns:\n        Nothing much.\n    "
    )
    assert doc == Docstring("Summary here.", {"a": "The a."}, "Nothing much.")


def test_mixed_styles() -> None:
    doc = parse_docstring("Mixed.\n\nArgs:\n    a: From Google.\n\n:param b: From reST.\n")
    assert doc == Docstring("Mixed.", {"a": "From Google.", "b": "From reST."}, None)
