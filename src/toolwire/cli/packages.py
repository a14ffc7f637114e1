"""What to install when an import fails: the one place the command line says ``pip install``.

A user's file that imports a module which is not installed gets the package that provides
it, installed with the interpreter toolwire runs on (``/path/to/python -m pip install
PyYAML``), so it lands in the environment that imports the file. Only modules in
:data:`PACKAGES` get a ``pip install`` line: for any other name (a typo such as ``numpyy``
would send the user to whatever someone registered under that name) the line says it is not
installed, and names a known module when one is close. toolwire's own optional parts get
the command that adds the extra from where toolwire was installed (:mod:`toolwire._pip`).
"""

from __future__ import annotations

import difflib
import sys

from .._pip import extra_install, pip_install

# The importable module -> the extra of toolwire that installs it.
EXTRAS = {"uvicorn": "http", "httpx": "http", "jwt": "auth", "redis": "redis"}

# The importable module -> the package on PyPI that provides it; the names that differ first.
PACKAGES = {
    "yaml": "PyYAML",
    "PIL": "Pillow",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "jwt": "PyJWT",
    "jose": "python-jose",
    "Crypto": "pycryptodome",
    "OpenSSL": "pyOpenSSL",
    "nacl": "PyNaCl",
    "magic": "python-magic",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "fitz": "PyMuPDF",
    "pymupdf": "PyMuPDF",
    "google.protobuf": "protobuf",
    "googleapiclient": "google-api-python-client",
    "serial": "pyserial",
    "usb": "pyusb",
    "attr": "attrs",
    "git": "GitPython",
    "github": "PyGithub",
    "MySQLdb": "mysqlclient",
    "zmq": "pyzmq",
    "slugify": "python-slugify",
    "websocket": "websocket-client",
    "socks": "PySocks",
    "dns": "dnspython",
    "Bio": "biopython",
    "speech_recognition": "SpeechRecognition",
    "slack_sdk": "slack-sdk",
    "pydantic_settings": "pydantic-settings",
    "markdown_it": "markdown-it-py",
    "jinja2": "Jinja2",
    "markdown": "Markdown",
    "sqlalchemy": "SQLAlchemy",
    "psycopg2": "psycopg2-binary",
    "tomli": "tomli",
    "numpy": "numpy",
    "pandas": "pandas",
    "scipy": "scipy",
    "matplotlib": "matplotlib",
    "requests": "requests",
    "httpx": "httpx",
    "aiohttp": "aiohttp",
    "pydantic": "pydantic",
    "openai": "openai",
    "anthropic": "anthropic",
    "boto3": "boto3",
    "redis": "redis",
    "psycopg": "psycopg",
    "asyncpg": "asyncpg",
    "pymongo": "pymongo",
    "psutil": "psutil",
    "rich": "rich",
    "click": "click",
    "typer": "typer",
    "fastapi": "fastapi",
    "starlette": "starlette",
    "uvicorn": "uvicorn",
    "tqdm": "tqdm",
    "pytz": "pytz",
    "tabulate": "tabulate",
    "openpyxl": "openpyxl",
    "pypdf": "pypdf",
    "lxml": "lxml",
    "playwright": "playwright",
    "selenium": "selenium",
    "paramiko": "paramiko",
    "aiofiles": "aiofiles",
    "feedparser": "feedparser",
    "docker": "docker",
    "torch": "torch",
    "transformers": "transformers",
    "tiktoken": "tiktoken",
    "polars": "polars",
    "pyarrow": "pyarrow",
    "duckdb": "duckdb",
    "networkx": "networkx",
    "sympy": "sympy",
    "websockets": "websockets",
    "cryptography": "cryptography",
    "orjson": "orjson",
    "jsonschema": "jsonschema",
    "tenacity": "tenacity",
}


def missing_extra_message(module: str, what: str) -> str:
    """``what`` needs one of toolwire's extras, which ``module`` is part of."""
    extra = EXTRAS.get(module, module)
    return f"{what} needs the {extra} extra ({module} is not installed): {extra_install(extra)}"


def missing_module_message(name: str) -> str:
    """Why ``import name`` failed and what to do: the ``pip install`` for a known module,
    otherwise a hint at the spelling."""
    package = PACKAGES.get(name)  # the first missing part: "yaml.x" when yaml is installed
    if package is not None:
        return f"missing dependency {name!r}: {pip_install(package)}"
    close = difflib.get_close_matches(name, PACKAGES, n=1, cutoff=0.8)
    hint = f"did you mean {close[0]}?" if close else "check the spelling"
    return (
        f"no module named {name!r} is installed in the environment toolwire runs in "
        f"({sys.executable}); {hint}"
    )
