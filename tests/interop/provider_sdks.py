"""The LLM providers' own Python SDKs (``google-genai`` and ``openai`` from PyPI) for the
provider-profile checks, in a virtualenv of their own (``.venv/provider-sdks``): toolwire and
its tests depend on neither."""

from __future__ import annotations

from interop.pip_venv import pip_venv

PACKAGES = {"google-genai": "3.3.0", "openai": "3.51.0"}
CHECK = "import google.genai, openai; print(google.genai.__version__, openai.__version__)"


def provider_sdks_python() -> str:
    """The interpreter of a virtualenv with the pinned ``google-genai`` and ``openai``."""
    return pip_venv("provider-sdks", PACKAGES, CHECK, "the provider SDK checks")
