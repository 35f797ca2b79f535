"""Module-level patterns compiled on first use (``krouter.lazy_pattern``): the same answers as
``re.compile``, none compiled by importing the CLI, and every one in the package valid."""

from __future__ import annotations

import copy
import importlib
import json
import pickle
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import krouter
from krouter.lazy_pattern import _LazyPattern, lazy_pattern


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    source, flags = r"(?P<word>[a-z]+)-(\d+)", re.IGNORECASE
    lazy, eager = lazy_pattern(source, flags), re.compile(source, flags)
    text = "Build-12 and deploy-7, ROLLBACK-3"
    assert lazy.pattern == source and lazy.flags == eager.flags
    assert lazy.groupindex == eager.groupindex
    assert lazy.search(text).group("word") == "Build"  # type: ignore[union-attr]
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in eager.finditer(text)]
    assert lazy.findall(text) == eager.findall(text)
    assert lazy.sub(r"\2", text) == eager.sub(r"\2", text)
    assert lazy.fullmatch("a-1") and not lazy.match(" a-1")
    assert lazy.split(text) == eager.split(text)


def test_it_is_compiled_once_and_only_when_used() -> None:
    lazy = lazy_pattern(r"\bx\b")
    assert "_lazy_compiled" not in vars(lazy)
    assert lazy.search("a x b")
    compiled = vars(lazy)["_lazy_compiled"]
    assert lazy.sub("y", "x x") == "y y"
    assert vars(lazy)["_lazy_compiled"] is compiled


def test_a_bad_pattern_fails_where_it_is_first_used() -> None:
    broken = lazy_pattern("(unclosed")
    with pytest.raises(re.error):
        broken.search("text")


def test_copies_and_pickles_answer_the_same() -> None:
    unused, used = lazy_pattern("c+d"), lazy_pattern("(?P<a>a+)b")
    assert used.search("xaab") and used.groupindex == {"a": 1}  # read before copying: a mappingproxy
    for lazy in (unused, used):
        assert copy.copy(lazy) is lazy and copy.deepcopy(lazy) is lazy  # as for a compiled pattern
        twin = pickle.loads(pickle.dumps(lazy))
        assert twin.pattern == lazy.pattern and twin.flags == lazy.flags
        assert bool(twin.search("aab cdd")) and len(pickle.dumps(lazy)) < 120


def test_it_equals_its_compiled_pattern_as_a_match_names_it() -> None:
    quoted, bare = lazy_pattern(r"'(\w+)'"), lazy_pattern(r"(\w+)")
    match = quoted.search("say 'hi'")
    assert match is not None and match.re == quoted and match.re in (bare, quoted)
    assert match.re != bare and quoted != bare and quoted == lazy_pattern(r"'(\w+)'")
    assert hash(quoted) == hash(match.re) and {match.re: 1}[quoted] == 1


def _patterns_in(value: object, depth: int = 0) -> list[_LazyPattern]:
    if type(value).__qualname__ == _LazyPattern.__qualname__:
        return [value]  # type: ignore[list-item]
    if depth < 3 and isinstance(value, (list, tuple, set, frozenset, dict)):
        items = [*value.keys(), *value.values()] if isinstance(value, dict) else list(value)
        return [found for item in items for found in _patterns_in(item, depth + 1)]
    return []


def test_every_pattern_in_the_package_compiles() -> None:
    """Compiled on first use, a typo in a pattern would wait for the question that reaches it."""
    # Found through the modules, not gc.get_objects(): a server in an earlier test froze the heap.
    patterns = []
    for info in pkgutil.walk_packages(krouter.__path__, "krouter."):
        if info.name != "krouter.__main__":
            module = importlib.import_module(info.name)
            patterns += [p for value in vars(module).values() for p in _patterns_in(value)]
    assert len({id(p) for p in patterns}) > 150
    for pattern in patterns:
        assert isinstance(pattern.pattern, str)  # compiles it, or raises re.error naming the pattern


_PROBE = """
import gc, json, sys
from krouter.lazy_pattern import _LazyPattern
from krouter.cli import run
made = [o for o in gc.get_objects() if isinstance(o, _LazyPattern)]
compiled = lambda: sum("_lazy_compiled" in vars(o) for o in made)
imported = compiled()
sys.argv = ["krouter", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
print(json.dumps([len(made), imported, compiled()]))
"""


def test_importing_the_cli_compiles_no_pattern_and_an_ask_only_some(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Primary database.md").write_text(
        "# Primary database\n\nWe use PostgreSQL 16.\n", encoding="utf-8"
    )
    args = ["ask", "which database do we use", "--vault", str(vault)]
    out = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True)
    made, at_import, after_ask = json.loads(out.stdout.strip().splitlines()[-1])
    assert at_import == 0
    assert 0 < after_ask < made
