"""Which of the top page's triggers a question expresses: a trigger is someone's wording of a question the
page answers (the owner's, the nightly learner's, an agent's), and counts toward the decision only when
the question asks what it asks (docs/decisions.md D24, D53, D130)."""

from __future__ import annotations

from krouter.index.store import Index
from krouter.routing.elsewhere import named_elsewhere
from krouter.routing.question import Unit
from krouter.routing.scoring import Target
from krouter.routing.tables import Tables

TRIGGER_MATCH = 2 / 3


def fired_triggers(top: Target, units: list[Unit], index: Index, t: Tables) -> set[int]:
    """Question units that belong to a trigger phrasing the question actually expresses.

    Triggers (some written by the learner) always help ranking, but count towards the decision only
    when the question holds at least TRIGGER_MATCH of one trigger's terms: sharing a single word
    with a trigger is not asking what the trigger asks, and must not turn a refusal into a citation.
    Nor does a trigger count when one of those shared words is missing from the page's own text
    while another current page's title, aliases, tags or path hold it: that word may name another
    subject ("frontend" when a "Frontend team" page exists, on the backend rotation page), so the
    trigger may have been taught for a neighbour's question, and must not outvote the pages themselves;
    unless the question holds the trigger whole and names no other page with its other words (D130,
    D133: the owner vouched for it).
    Measured in learn_bench on the three dev vaults: a plausible-but-wrong teacher's neighbour
    questions let through fell from 24 to 14, and an honest teacher still taught 16 of its 21
    triggers. Counting other pages' body text too stopped 3 more neighbours but cost the honest
    teacher 6 more of its own wordings.
    A question holding fewer than TRIGGER_MATCH of a trigger's terms may still count the trigger's
    bridge words (``_bridge``) (docs/decisions.md D24). No trigger the question expresses only in part
    counts when one of the question's other words names another page's subject so: it may be that
    page's question in the trigger's words.
    """
    keys = {u.key: i for i, u in enumerate(units)}
    mine = set(top.contributors)
    fired: set[int] = set()
    named: dict[str, bool] = {}

    def names_another(key: str) -> bool:
        # Asked of the same words for every trigger of every contributing page: worked out once each.
        if key not in named:
            named[key] = named_elsewhere(units[keys[key]], mine, index, t)
        return named[key]

    for pid in top.contributors:
        for trig in index.trigger_terms(pid):
            shared = trig & keys.keys()
            # A trigger the question holds whole is a question someone vouched for as asked, whatever
            # page a word of it names: no teacher but the owner writes one (``krouter teach`` holds
            # such a pick for the owner, and the nightly learner refuses it; D130). Not when the
            # question's other words name another page too: "成都用车出差怎么付钱" holds the trigger
            # 出差用车怎么付钱 and the alias 成都用车 of the Chengdu office's page whole (a cold review).
            if not trig:
                continue
            if any(map(names_another, shared)) and (
                shared != trig or any(map(names_another, keys.keys() - trig))
            ):
                continue
            # A question that expresses a trigger in part, whose other words name another page's subject,
            # may be that page's question in the trigger's words: "who tunes the argon gadget on Tuesdays"
            # through the zinc page's "who tunes the zinc gadget on Tuesdays" (a cold review; D24 held this
            # below TRIGGER_MATCH only). A trigger the question holds whole counts whatever else it says
            # ("urgent: who looks after the kitchen coffee maker", with a page tagged urgent).
            if shared != trig and any(map(names_another, keys.keys() - trig)):
                continue
            if len(shared) / len(trig) >= TRIGGER_MATCH:
                fired |= {keys[k] for k in shared}
            else:
                fired |= _bridge(shared, keys, units, mine)
    return fired


def _bridge(shared: set[str], keys: dict[str, int], units: list[Unit], mine: set[int]) -> set[int]:
    """The question units a partly expressed trigger vouches for: its words the page's text lacks.

    A trigger is a question someone verified this page answers (``krouter.learner.verify.verify_pick``);
    its words that the page's own text lacks are the bridge between that wording and the page. A later
    question that holds fewer than TRIGGER_MATCH of the trigger's terms still asks what the trigger
    asked when it shares at least two of them, one held by the page's own text (the anchor) and one
    it lacks (the bridge): then the bridge words count, and nothing else of the trigger does. A
    question sharing a single word, or only words the page holds anyway, gets nothing from it.
    """
    if len(shared) < 2:
        return set()
    own = {k for k in shared if any(units[keys[k]].postings.get(p, (0, 0, 0))[::2] != (0, 0) for p in mine)}
    bridge = shared - own
    if not own or not bridge:
        return set()
    return {keys[k] for k in bridge}
