"""The one verification path: every pick, the nightly model's or an agent's, passes here before it is written.

``candidates`` gives the live pages the router would consider for a question; ``verify_pick`` says why
a pick of one of them must be rejected, or None. A quote must be on the page (after Unicode and
whitespace normalisation) and be a sentence rather than a fragment (``quotes``), and share a content
word with the question. The checks are lexical and cheap on purpose: the model (or agent) proposes, and
these decide.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from krouter import config
from krouter.lazy_pattern import lazy_pattern
from krouter.learner.name_fields import lacked_name_words, naming_field, only_replaced
from krouter.learner.quotes import (
    as_shown,
    is_sentence,
    quote_on_page,
    section_heading,
)
from krouter.learner.shared_words import linking_words
from krouter.learner.table_rows import header_of, is_table_row
from krouter.routing.prices import priced_row, states_amount
from krouter.routing.receipt import Citation
from krouter.routing.router import Router
from krouter.tokens.chinese import fallback_bigrams
from krouter.tokens.question_frames import asks_price
from krouter.tokens.scripts import is_cjk
from krouter.vault.page import parse_page

CANDIDATE_POOL = 12
MAX_CANDIDATES = 5
# Where a quote's sentences part.
_SENTENCES = lazy_pattern(r"(?<=[。！？!?；;])|(?<=\.)\s+|\n+")

# ----- candidates -----------------------------------------------------------------------------------


def candidates(router: Router, question: str, exclude: Iterable[str]) -> list[Citation]:
    """The live pages the router would consider for a question, minus inputs/clippings folders and pages
    tagged as clippings.

    Replaced pages never appear: the router ranks them under their replacement, or skips them.
    """
    receipt = router.decide(question, k=CANDIDATE_POOL, lexical_only=True)
    folders = config.folder_names(exclude)
    keep = [
        c
        for c in receipt.candidates
        if not (config.in_folders(c.path, folders) or router.is_clipping(c.path))
    ]
    return keep[:MAX_CANDIDATES]


# ----- verification ----------------------------------------------------------------------------------


def _df(router: Router, term: str, ignore: set[int]) -> int:
    return sum(1 for row in router.index.postings(term) if row[0] not in ignore)


def _specific_units(router: Router, question: str, ignore: set[int]) -> list[str]:
    """The question's rarest words that the vault's memory pages hold (lowest document frequency).

    Pages in ``ignore`` (inputs and clippings) do not count: they are reading material, not memory,
    and their broad vocabulary would make every real answer look like a neighbour.
    """
    best: list[str] = []
    best_df: int | None = None
    # The same vocabulary-aware cut as the router's, so these units are the ones a citation matched.
    for qt in router.question_words(question):
        df = _df(router, qt.term, ignore)
        if df == 0 and is_cjk(qt.term) and fallback_bigrams(qt.term):
            df = min(_df(router, g, ignore) for g in fallback_bigrams(qt.term))
        if df == 0:
            continue
        if best_df is None or df < best_df:
            best, best_df = [qt.text], df
        elif df == best_df:
            best.append(qt.text)
    return best


def _holds(router: Router, page: str, question: str, units: list[str]) -> set[str]:
    """Which of the question's ``units`` (display texts) the page holds, looked up in the index."""
    pid = next((row[0] for row in router.index.page_table() if row[1] == page), None)
    if pid is None:
        return set()
    held: set[str] = set()
    for qt in router.question_words(question):
        if qt.text not in units:
            continue
        terms = [qt.term]
        if not router.index.postings(qt.term) and is_cjk(qt.term) and fallback_bigrams(qt.term):
            terms = list(fallback_bigrams(qt.term))
        if all(any(row[0] == pid for row in router.index.postings(term)) for term in terms):
            held.add(qt.text)
    return held


# What a word naming another page means to the teacher, said as a doubt, not a verdict: agent-loop runs
# read "neighbour page" as KRouter saying their answer was wrong.
_NAMED = ": a neighbour page's mark, or an everyday word that page's name holds"


# Why a pick of a page no wording of the question found is refused (``teach`` adds what an agent can do).
NOT_A_CANDIDATE = "the page is not one of this question's candidates"
_LACKS = lazy_pattern(
    r"it lacks (.+?), which (other pages hold|names another page|is part of what another page is called)"
)


def same_doubt(found: str, held: object) -> bool:
    """True when every doubt of ``found`` (the checks' doubts now) is one a hold's stored doubt (``held``)
    named, by its words and kind, however a KRouter version worded it: a hold made before an upgrade that
    reworded the doubt ("neighbour page: it lacks …") is still the owner's to accept (the diff review),
    and so is one whose stored doubt begins with the dispute of a citation (a cold review), or one of
    whose doubts has gone since (the page edited, a trigger written: the learner bench)."""
    if not isinstance(held, str):
        return False
    ours, theirs = _doubted(found), _doubted(held)
    return found == held or bool(ours and ours <= theirs)


def _doubted(text: str) -> set[tuple[str, str]]:
    """Each word a doubt says the page lacks, with the doubt's kind ("other pages hold", …)."""
    return {(word, kind) for words, kind in _LACKS.findall(text) for word in words.split(", ")}


def verify_pick(
    router: Router,
    question: str,
    ignore: set[int],
    cands: list[Citation],
    page: str,
    quote: str | None,
    text: str,
    also: Sequence[tuple[str, list[Citation]]] = (),
    doubts: bool = True,
) -> str | None:
    """Why a pick of ``page`` for ``question`` must be rejected, or None when it passes every check.

    The one verification path for every teacher: the nightly model and an agent (``teach``).
    ``cands`` are the question's candidates, ``also`` the agent's phrasings with theirs (the nightly
    learner has none). ``text`` is the picked page's current text. The page must be a candidate of the
    question or of a phrasing; the quote must be on the page's body (frontmatter, where earlier triggers
    live, cannot vouch for itself), be a sentence, and share a content word with the question or a
    phrasing. Every wording that shares a word with the quote (the question itself whenever it does)
    must find on the page its most specific word that the vault knows, and so must the question itself
    whatever it shares: a page lacking it while other pages hold it is a neighbour, not the answer. A phrasing therefore cannot vouch for a question
    that the quote's own words tie to a neighbour. Nor may the question hold a word that names another
    page (its title, aliases, tags or path) while this page's text lacks it, by the question's own
    words or through the dictionary (``Router.trigger_blocker``, the decision's rule): the router counts
    such a trigger only for a question that holds it whole, and that word may be what makes the question
    a neighbour's. A question asking
    a price (多少钱) needs a sentence of the quote stating an amount beside its words (D93).
    ``doubts=False`` leaves out the checks that stop honest lessons as often as neighbours': a question
    word naming another page that this page lacks (D130), and the last check (the page lacking a
    wording's most specific word: D56, D73). A pick only they fail is held for the owner (``teach``),
    who vouches for that doubt alone (``pending.accept``).
    """
    # Every check reads the question and its phrasings as a lookup does (Traditional characters the
    # notes write in Simplified ones, so written: tokens/traditional.py).
    question = router.as_written(question)
    askings = [(question, cands), *((router.as_written(q), cs) for q, cs in also)]
    if not any(page in {c.path for c in cs} for _, cs in askings):
        return NOT_A_CANDIDATE
    if not quote or not quote.strip():
        return "no quote"
    parsed = parse_page(page, text)
    if parsed.yaml_error:
        # Broken or oversized frontmatter (an alias bomb among them) is not loaded again to be edited.
        return f"the page's frontmatter has a problem ({parsed.yaml_error}); fix it first"
    if parsed.replaced:
        return "the page is marked replaced"
    if not quote_on_page(quote, parsed.body):
        return "the quote is not on the page"
    # Every other check reads the quote as a reader of the page sees it: its words in struck-out text,
    # a comment or a footnote marker vouched for it as a sentence sharing the question's words (the
    # diff review: "~~Legal approves every vendor contract.~~ Legal" passed on one visible word).
    quote = as_shown(quote)
    if not is_sentence(quote) and not is_table_row(quote, parsed.body):
        return "the quote is a fragment, not a sentence"
    # Through the dictionary too (``linking_words``): the lookup matched 翻译→translate, and an agent-loop
    # run had to ask again with a phrasing and teach a second time.
    linked = [(q, cs) for q, cs in askings if linking_words(quote, q, router.index.holding)]
    # Or through the heading of the quote's section, whose words its lines answer under ("周二、周四
    # 14:00–17:00" under "## 发布窗口": an agent-loop run's quote of the answering line was refused twice).
    heading = section_heading(quote, parsed.body) if not linked else ""
    if heading:
        linked = [
            (q, cs) for q, cs in askings if linking_words(f"{heading}\n{quote}", q, router.index.holding)
        ]
    if not linked:
        what = "the question or its phrasings" if also else "the question"
        return (
            f"the quote shares no content word with {what}: if the question is worded unlike the page, teach "
            "again with a rewording in the page's own words as a phrasing (--also; MCP: phrasings)"
        )
    # The sentence that answers a price asked states one beside the question's words (D93's check, on the
    # quote: a quote may run over two sentences, the thing in one and another thing's price in the next).
    # Beside the words of any wording: a question asked in Chinese of English notes shares its words with
    # the quote only through the agent's translation (the agent-loop run: 第一单最少要订多少钱 against
    # "first order at least £600" was refused for stating no amount).
    if asks_price(question):
        # A table's row states its amount under a header that says what the column holds ("| Fee (USD) |").
        header = header_of(quote, parsed.body)
        if header is not None and priced_row(header, quote):
            priced = [quote]
        else:
            priced = [sentence for sentence in _SENTENCES.split(quote) if states_amount(sentence)]
        if not any(
            linking_words(sentence, q, router.index.holding) for sentence in priced for q, _ in askings
        ):
            return "the question asks a price, and no sentence of the quote states an amount beside its words"
    # A word of another page's name that this page lacks marks a neighbour's question ("frontend", a
    # "Frontend team" page, asked of the backend rotation) as often as an everyday word a name or a tag
    # happens to hold ("call" of a "Weekly ops call" page, asked of Hannah's days): no word rule measured
    # tells them apart (D130), so it is a doubt for the owner. As written first, then through the
    # dictionary too (cost→费用 of another page's alias 费用报销): the decision's own rule for counting a
    # trigger a question does not hold whole. Every doubt is said, not only the first: the owner vouches
    # for what the list shows, and accepting a pick shown for one doubt wrote it past another (D133).
    found: list[str] = []
    named = lacked_name_words(router, question, page, f"{parsed.title}\n{parsed.body}") if doubts else []
    blocker = router.trigger_blocker(question, page) if doubts and not named else None
    for word, other in named or ([blocker] if blocker else []):
        held = naming_field(router.root, other, word)  # which of its names: an agent looked in the title
        what = (
            "is part of what another page is called"
            if len(word) == 1 and is_cjk(word)
            else "names another page"
        )
        found.append(f"it lacks {word!r}, which {what} ({other}{', ' + held if held else ''})")
    if found:
        found[-1] += _NAMED
    # The question itself always (SECURITY.md's promise): checking only the wordings the quote shares a
    # word with let a phrasing that shares one vouch for a question that shares none (a cold review:
    # "how often is the garage swept", taught on the espresso machine's page with no doubt shown).
    checked = [askings[0], *(pair for pair in linked if pair[0] != question)]
    for wording, cs in checked if doubts else []:
        specific = _specific_units(router, wording, ignore)
        if not specific:
            continue
        by_path = {c.path: c for c in cs}
        # A unit matched through the dictionary shows as "日期→date": it is the unit 日期 the page holds.
        if page in by_path:
            matched = {shown.split("→", 1)[0] for shown in by_path[page].matched}
        else:
            matched = _holds(router, page, wording, specific) | router.held_words(wording, page)
        if not matched & set(specific):
            words = ", ".join(repr(w) for w in specific)
            # Said as a doubt, not a verdict: a teaching that fails only this is held for the owner, and
            # "neighbour page" beside "pending" read to an agent as both accepted and judged wrong.
            old = only_replaced(router, wording, specific, ignore)
            found.append(
                f"it lacks {words}, which other pages hold: a neighbour page's mark, or a question worded "
                "unlike the page"
                if old is None
                # As the lookup says it ("only replaced pages hold it"): an agent-loop run was told both.
                else f"it lacks {words}, which other pages hold (only replaced ones: {old}): a question worded "
                "unlike the page, or one the replaced page answered"
            )
            break
    return "; ".join(found) or None
