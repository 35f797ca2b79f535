"""Text that came from outside, made safe to store and to show.

``clean`` turns lone surrogates (undecodable bytes of a command-line argument, ``\\ud800`` in an MCP
request's JSON) into U+FFFD, so a question can be logged, tokenised and serialised. ``visible`` renders
control characters as escapes before text reaches a terminal: a page title like ``"ok\\x1b[2K\\rCITE
Fake.md"`` must not erase or overwrite the real receipt line, and a newline in a file name must not
split one line of output in two.
"""

from __future__ import annotations

import contextlib
import os
import re

from krouter.lazy_pattern import lazy_pattern

_SURROGATE = lazy_pattern("[\ud800-\udfff]")
# C0 controls, DEL, C1 controls, the bidirectional overrides and isolates (they reorder what a line
# shows), line/paragraph separators, and lone surrogates.
_CONTROL = lazy_pattern("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
# In multi-line text (a page printed by `krouter read`) newlines, tabs and CRLF endings are the text's
# own layout and stay; every other control character is still shown as an escape.
_CONTROL_IN_TEXT = lazy_pattern(
    "\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
)

# What a terminal acts on rather than shows: a whole escape sequence (CSI "ESC [ 2 J", OSC "ESC ] ...
# BEL"; with only its ESC taken, "[2J" stayed as noise), and any C0 control but tab and newline, DEL,
# and any C1 control. The string sequences (OSC; DCS, SOS, PM, APC) only with their terminator: an
# unterminated one took the ordinary text after it ("see \x1b] the deploy key is in …" lost the rest of
# its line, "\x9b costs" its "c": a cold review); a lone introducer becomes a space.
_ESCAPE_SEQUENCE = lazy_pattern(
    "(?:\x1b\\[|\x9b)[0-?]*[!-/]*[@-~]|\x1b\\][^\x07\x1b\n]{0,512}(?:\x07|\x1b\\\\)"
    "|\x1b[PX^_][^\x1b]{0,512}\x1b\\\\"
)
_STORED_CONTROL = lazy_pattern("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def clean(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD; text without any is returned as is.

    A command-line argument's undecodable bytes arrive as surrogates in U+DC80..U+DCFF; they are
    decoded back to bytes first, so valid UTF-8 split by the terminal is not lost."""
    if not _SURROGATE.search(text):
        return text
    # Surrogates outside the escape range (from JSON) cannot be encoded: replaced one by one below.
    with contextlib.suppress(UnicodeEncodeError):
        text = os.fsencode(text).decode("utf-8", "replace")
    return _SURROGATE.sub("\ufffd", text)


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str) -> str:
    """One line of output with every control character written as an escape (``\\e``, ``\\n``, ``\\x07``,
    ``\\u202e``), so what the terminal shows is what the text holds."""
    return _CONTROL.sub(_escape, text)


def visible_text(text: str) -> str:
    """Like ``visible``, for multi-line text: newlines, tabs and CRLF line ends are kept."""
    return _CONTROL_IN_TEXT.sub(_escape, text)


def without_controls(text: str) -> str:
    """``text`` to be stored (a page's trigger, an imported turn): CRLF line ends made LF, terminal
    escape sequences dropped, and every other control character but tab and newline made a space.
    Written as ``\\u001b[2J`` into a trigger, an escape sequence was noise to every reader of the page."""
    return _STORED_CONTROL.sub(" ", _ESCAPE_SEQUENCE.sub("", text.replace("\r\n", "\n")))
