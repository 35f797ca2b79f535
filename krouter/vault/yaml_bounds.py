"""The bounds YAML frontmatter is read within: how deep it may nest and how much it may expand to once
its aliases are followed (`krouter.vault.page` reads frontmatter with them).
"""

from __future__ import annotations

from typing import Any

# Deeper than this is a recursive alias (``a: &x [*x]``), not a real page's metadata.
MAX_DEPTH = 64
# What frontmatter may expand to once aliases are followed: nodes plus scalar characters. A YAML alias
# bomb (``&a [x, x, ...]``, ``&b [*a, *a, ...]``, ...) expands exponentially in a few hundred bytes.
MAX_EXPANDED = 1_000_000

# What opens a nesting level in YAML: a block mapping's key (":" or "?"), a sequence item ("-"), a flow
# collection ("[", "{"). Each collection on a path from the root holds one of its own.
_NESTING = ":?-[{"


def bounded_as_written(text: str) -> bool:
    """True when frontmatter text cannot break `check_expansion`'s limits, so measuring its node graph
    (~35 % of parsing a page) can be skipped: without a ``*`` there is no alias, so no node is shared
    and nothing expands past what is written (nodes and characters at most twice the text); with at
    most MAX_DEPTH of the characters that open a nesting level, nothing nests deeper."""
    return "*" not in text and 2 * len(text) < MAX_EXPANDED and sum(map(text.count, _NESTING)) <= MAX_DEPTH


def check_expansion(root: Any, yaml: Any) -> None:
    """Raise ValueError when the node graph, with every alias followed, exceeds the work budget, nests
    deeper than any real page's metadata, or contains itself."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    # Iterative post-order: (node, depth, children already pushed?).
    stack: list[tuple[Any, int, bool]] = [(root, 0, False)]
    while stack:
        node, depth, expanded = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children: list[Any] = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [part for pair in node.value for part in pair]
        if expanded:
            on_path.discard(key)
            total = 1 + sum(sizes[id(c)] for c in children)
            if isinstance(node, yaml.ScalarNode):
                total += len(node.value)
            if total > MAX_EXPANDED:
                raise ValueError(
                    f"frontmatter expands to more than {MAX_EXPANDED:,} items and characters once its "
                    "aliases are followed (an alias bomb?); fields not read"
                )
            sizes[key] = total
            continue
        if key in on_path:
            raise ValueError("frontmatter refers to itself (a recursive alias); fields not read")
        if depth > MAX_DEPTH:
            raise ValueError("frontmatter nests too deeply (a recursive alias?)")
        on_path.add(key)
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children if id(c) not in sizes)
