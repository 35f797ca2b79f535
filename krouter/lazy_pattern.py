"""Regular expressions compiled the first time they are used, not when their module is imported.

The package holds about 230 module-level patterns, many over the whole Han, kana or Hangul blocks, whose
character classes the ``re`` module compiles in Python, one code point at a time: some 60 ms of a fresh
process's imports, before a ``krouter ask`` that uses about 60 of them reads a page.
"""

from __future__ import annotations

import re


class _LazyPattern:
    """A pattern's source and flags until an attribute is asked for; then the compiled pattern's.

    Each attribute read through the compiled pattern is kept on the instance, so a method used in a
    loop (``search``, ``finditer``, ``sub``) is found in the instance's dict from its second use on,
    as cheaply as on a compiled pattern. It equals (and hashes as) its compiled pattern, which a
    match's ``.re`` is: code that tells which pattern matched (``m.re in (A, B)``) works as before.
    """

    def __init__(self, source: str, flags: int) -> None:
        self.__dict__["_lazy_source"] = source
        self.__dict__["_lazy_flags"] = flags

    def _compiled(self) -> re.Pattern[str]:
        compiled = self.__dict__.get("_lazy_compiled")
        if compiled is None:
            compiled = re.compile(self.__dict__["_lazy_source"], self.__dict__["_lazy_flags"])
            self.__dict__["_lazy_compiled"] = compiled
        return compiled

    def __getattr__(self, name: str) -> object:
        # Dunder names are looked up on instances by pickle and copy before any state is set: answer
        # them as a plain object would, not by compiling a pattern whose source is not there yet.
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(self._compiled(), name)
        self.__dict__[name] = value
        return value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _LazyPattern):
            other = other._compiled()
        return self._compiled() == other

    def __hash__(self) -> int:
        return hash(self._compiled())

    def __reduce__(self) -> tuple[object, tuple[str, int]]:
        # Its source and flags, not what it has read off its compiled pattern (a mappingproxy from
        # ``.groupindex`` cannot be pickled), as a compiled pattern pickles.
        return lazy_pattern, (self.__dict__["_lazy_source"], self.__dict__["_lazy_flags"])

    def __copy__(self) -> _LazyPattern:
        return self  # immutable, as ``copy.copy`` of a compiled pattern is the pattern itself

    def __deepcopy__(self, memo: dict[int, object]) -> _LazyPattern:
        return self

    def __repr__(self) -> str:
        return f"lazy_pattern({self.__dict__['_lazy_source']!r})"


def lazy_pattern(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, compiled on first use; for patterns made when a module loads.

    Typed as the compiled pattern it stands for: every use in the package is an attribute of it
    (``.search``, ``.sub``, ``.pattern``) or a comparison with one, never ``isinstance`` or
    ``re.sub(pattern, ...)``.
    """
    # Not typing.cast: importing typing costs a fresh ``krouter ask`` answered over the watcher's socket
    # more than the whole of its own imports, and the socket client's modules hold patterns too.
    return _LazyPattern(source, flags)  # type: ignore[return-value]
