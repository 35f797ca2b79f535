"""The lines of a transcript file, read once and bounded: a pipe (``krouter import <(...)``,
``/dev/stdin``) can be read only once, and a device (``/dev/zero``) never ends.

A line is read at most ``LINE_LIMIT`` bytes at a time, so memory stays bounded however long the line;
past it the file is refused, naming it (an import skips it and reads the others). What is not a regular
file is refused past ``STREAM_LIMIT``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import BinaryIO

from krouter.errors import TranscriptTooLarge

MIB = 2**20
# Far past a real transcript line: Claude Code writes a pasted file or an image into one line.
LINE_LIMIT = 64 * MIB
STREAM_LIMIT = 512 * MIB


def is_regular(handle: BinaryIO) -> bool:
    """Whether the open file is a regular file (not a pipe, a socket or a device)."""
    return stat.S_ISREG(os.fstat(handle.fileno()).st_mode)


def bounded_lines(handle: BinaryIO, shown: str, *, regular: bool) -> Iterator[bytes]:
    """Each line of ``handle`` (its ``\\n`` kept), refusing a line past ``LINE_LIMIT`` and, unless
    ``regular``, a stream past ``STREAM_LIMIT``; ``shown`` names the file in the error."""
    total = 0
    lineno = 0
    while line := handle.readline(LINE_LIMIT + 1):
        lineno += 1
        if len(line) > LINE_LIMIT:
            raise TranscriptTooLarge(
                f"{shown}: line {lineno} is longer than {LINE_LIMIT // MIB} MiB: not a transcript KRouter "
                "reads; nothing imported from it"
            )
        total += len(line)
        if not regular and total > STREAM_LIMIT:
            raise TranscriptTooLarge(
                f"{shown}: more than {STREAM_LIMIT // MIB} MiB read and no end: not a transcript KRouter "
                "reads; nothing imported from it"
            )
        yield line
