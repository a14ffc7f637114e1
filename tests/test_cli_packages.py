"""The import name -> PyPI package table behind the CLI's missing-dependency line."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import shlex
import sys

import pytest

from toolwire._pip import extra_install
from toolwire.cli.packages import (
    EXTRAS,
    PACKAGES,
    missing_extra_message,
    missing_module_message,
)

# The cases where the import name is not the package's name, as users meet them.
DIFFERENT_NAMES = {
    "yaml": "PyYAML",
    "PIL": "Pillow",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "jwt": "PyJWT",
    "Crypto": "pycryptodome",
    "OpenSSL": "pyOpenSSL",
    "magic": "python-magic",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "fitz": "PyMuPDF",
    "google.protobuf": "protobuf",
    "serial": "pyserial",
    "usb": "pyusb",
}
SAME_NAMES = ["numpy", "pandas", "requests", "httpx", "aiohttp", "pydantic", "openai"]


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_table_has_the_common_cases() -> None:
    for module, package in DIFFERENT_NAMES.items():
        assert PACKAGES[module] == package
    for module in SAME_NAMES:
        assert PACKAGES[module] == module


def test_every_entry_installed_here_comes_from_the_package_it_names() -> None:
    """Checked against the installed distributions' own records of what they provide."""
    provided = importlib.metadata.packages_distributions()
    checked = 0
    for module, package in PACKAGES.items():
        top = module.split(".")[0]
        if top not in provided or importlib.util.find_spec(module) is None:
            continue
        distributions = {normalized(name) for name in provided[top]}
        alternatives = {normalized(package), normalized(package).removesuffix("-binary")}
        assert distributions & alternatives, (module, package, provided[top])
        checked += 1
    assert checked >= 10  # the test dependencies alone install that many of them


def test_every_package_name_is_a_valid_distribution_name() -> None:
    valid = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")
    assert all(valid.match(package) for package in PACKAGES.values())


@pytest.mark.parametrize(("module", "package"), sorted(DIFFERENT_NAMES.items()))
def test_a_known_module_gets_its_package_installed_with_this_interpreter(
    module: str, package: str
) -> None:
    expected = f"missing dependency {module!r}: {shlex.quote(sys.executable)} -m pip install "
    assert missing_module_message(module) == expected + package


def test_the_install_command_quotes_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", "/opt/my python/bin/python3")
    assert missing_module_message("yaml") == (
        "missing dependency 'yaml': '/opt/my python/bin/python3' -m pip install PyYAML"
    )


@pytest.mark.parametrize(
    ("module", "hint"),
    [
        ("numpyy", "did you mean numpy?"),
        ("reqeusts", "did you mean requests?"),
        ("yaml.missing_part", "check the spelling"),  # yaml is there, its submodule is not
        ("my_helpers", "check the spelling"),
    ],
)
def test_an_unknown_module_gets_a_spelling_hint_and_no_pip(module: str, hint: str) -> None:
    message = missing_module_message(module)
    assert "pip" not in message
    assert message == (
        f"no module named {module!r} is installed in the environment toolwire runs in "
        f"({sys.executable}); {hint}"
    )


def test_toolwire_extras_name_the_extra_and_where_toolwire_came_from() -> None:
    assert EXTRAS["uvicorn"] == "http"
    assert missing_extra_message("uvicorn", "--transport http") == (
        "--transport http needs the http extra (uvicorn is not installed): " + extra_install("http")
    )
