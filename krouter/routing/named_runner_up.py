"""Of two pages whose words tie, the one the question names goes first (docs/decisions.md D182).

"Check the notes on Mingyuan Securities: how many storage nodes…" asks about the Chinese customer page
aliased Mingyuan Securities, not the English customer page whose words score 1% higher. The name decides
only a tie, only for a page that holds most of what else the question asks on its own words, and only
when no page in the tie writes the name too while holding more of the question.
"""

from __future__ import annotations

from krouter.index.store import Index
from krouter.routing.citation import PageReads, title_units
from krouter.routing.fired_triggers import fired_triggers
from krouter.routing.other_names import named_first
from krouter.routing.question import Unit
from krouter.routing.scoring import Target
from krouter.routing.tables import Tables
from krouter.tokens.names import capitalised, is_name
from krouter.tokens.scripts import is_cjk


def named_runner_up(
    everything: list[Target],
    question: str,
    units: list[Unit],
    index: Index,
    t: Tables,
    content_hits: dict[int, set[int]],
    reads: PageReads,
    tie: float,
) -> str | None:
    """The runner-up's name when the question asks about it rather than the top page (D182): it ties the
    top page (its score within ``tie`` of the top's, what a refusal calls matching about equally); on
    its own, not through the pages it replaced, it holds at least half of the question's words outside
    its name and every word the question writes as a name ("Zorvane Kvist Logistics" is not the page
    aliased Zorvane); and the question names it and not the pages it ties with, none of which holds more
    of the question and writes its name too (``named_first``)."""
    top, second = everything[0], everything[1]
    if top.score <= 0 or (top.score - second.score) / top.score >= tie:
        return None
    name = title_units(units, second.page_id)
    held = (
        content_hits.get(second.page_id, set()) | fired_triggers(second, units, index, t)
    ) & second.matched
    if not holds_the_rest(units, held, name) or _lacks_a_name(units, held | name, question):
        return None
    tied = [x for x in everything if x is not second and (top.score - x.score) / top.score < tie]
    # A tied page holding a question word the named page lacks ("renewal", "new") answers more of it.
    richer = {
        x.page_id
        for x in tied
        if ((content_hits.get(x.page_id, set()) | title_units(units, x.page_id)) & x.matched) - held - name
    }
    return named_first(t, second.page_id, [x.page_id for x in tied], richer, question, units, reads.text)


def _lacks_a_name(units: list[Unit], held: set[int], question: str) -> bool:
    """True when a question word the page does not hold is a name as the question writes it: a CJK word
    no dictionary knows (维斯特 of 科维斯特), or a Latin one written with a capital (Kvist)."""
    return any(
        is_name(u.text) and (is_cjk(u.text) or capitalised(u.text, question))
        for i, u in enumerate(units)
        if i not in held
    )


def holds_the_rest(units: list[Unit], held: set[int], name: set[int]) -> bool:
    """True when the page holds at least half, by weight, of the question's words outside its ``name``."""
    rest = sum(u.weight for i, u in enumerate(units) if i not in name)
    return rest > 0 and sum(units[i].weight for i in held - name) >= rest / 2
