"""KRouter: which page of a Markdown vault holds the answer to this question, or does none?"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs a fresh process several ms
if TYPE_CHECKING:
    from krouter.errors import KRouterError
    from krouter.routing.receipt import Citation, Evidence, Receipt, Redirect
    from krouter.routing.router import Router, route

__version__ = "0.1.0"

__all__ = ["Citation", "Evidence", "KRouterError", "Receipt", "Redirect", "Router", "__version__", "route"]

# Imported on first use (PEP 562): `import krouter.config` or the `krouter` command's socket client must
# not pay for the router, the tokeniser and jieba's import chain (~45 ms) before it knows it needs them.
_LAZY = {
    "KRouterError": "krouter.errors",
    "Citation": "krouter.routing.receipt",
    "Evidence": "krouter.routing.receipt",
    "Receipt": "krouter.routing.receipt",
    "Redirect": "krouter.routing.receipt",
    "Router": "krouter.routing.router",
    "route": "krouter.routing.router",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'krouter' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
