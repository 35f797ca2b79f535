"""KRouter: which page of a Markdown vault holds the answer to this question, or does none?"""

from krouter.errors import KRouterError
from krouter.receipt import Citation, Evidence, Receipt, Redirect
from krouter.router import Router, route

__version__ = "0.1.0"

__all__ = ["Citation", "Evidence", "KRouterError", "Receipt", "Redirect", "Router", "__version__", "route"]
