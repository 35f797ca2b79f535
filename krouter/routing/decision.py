"""The decision: cite the top page or refuse, with the evidence and a reason a person can check.

The decision does not look at raw BM25 magnitudes, which mean different things on different vaults:
it compares the IDF-weighted share of the question's content that the top page covers (on the whole
page and in its best passage) with one floor, discounted when the top page barely leads the next.
A question word the vault never contains, or one that other pages hold but the top page lacks, lowers
that share by its IDF weight (past the two rarest, mostly by a quarter of it: ``wording``). Triggers
count only when the question expresses them. Vetoes refuse a page whatever its words' share: one that
matches nothing but single Han characters outside its title, another speaker's turn, a page that never
mentions another page's name the question names (王磊, Sarah Chen) or that points at the runner-up for
a word, any page when the question names something no page mentions (MongoDB, 北京), and a page that
states no amount beside its words (多少钱; D93) or no contact asked for (D114).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from krouter.index.store import Index
from krouter.routing.citation import PageReads, citation, passage_coverage, title_units
from krouter.routing.closest import REACH, by_passage, named_second
from krouter.routing.contacts import asks_contact, states_contact
from krouter.routing.elsewhere import named_page, unknown_name
from krouter.routing.fired_triggers import fired_triggers
from krouter.routing.other_names import mentioned_by_name, named_alone
from krouter.routing.pointers import as_missing, pointed_away, pointer_reason
from krouter.routing.prices import states_price
from krouter.routing.question import Unit, question_units
from krouter.routing.reasons import page_reason, quoted, reason_nothing, unread_note
from krouter.routing.receipt import Evidence, Receipt
from krouter.routing.scoring import score, top_targets, unit_bits, walk_window
from krouter.routing.set_apart import named_where_pointed
from krouter.routing.tables import Tables
from krouter.routing.turns import named_speaker_lacks_words
from krouter.routing.untranslated import untranslated
from krouter.routing.wording import as_wording, name_once
from krouter.tokens.question_frames import asks_price
from krouter.tokens.scripts import is_cjk

# The decision: confidence = coverage x clarity, compared with one floor.
# coverage: IDF-weighted share of the question's content the top page holds (page and best passage).
# clarity: how far the top page's score stands above the next page's, relative to its own; a page that
# only ties a neighbour gets half credit, one CLEAR_MARGIN ahead gets full credit. Both are ratios, so
# the floor means the same on a 10-page vault and a 10,000-page one. Measured in docs/decisions.md.
DEFAULT_FLOOR = 0.55
MARGIN_SHARE = 0.5
CLEAR_MARGIN = 0.5
# A receipt lists at most this many redirects and skipped pages: a vault with thousands of archived
# versions of one page must not turn an answer into hundreds of kilobytes.
MAX_LISTED = 20


def decide(
    question: str,
    k: int,
    index: Index,
    t: Tables,
    floor: float,
    root: Path,
    index_info: dict[str, object],
    passed: dict[str, str] | None = None,
) -> Receipt:
    """One wording's receipt: the ranked citations, the evidence, and cite or refuse against ``floor``.
    ``passed``: pages whose file cannot be read now, each with why, decided on as if they were not there."""
    passed = passed or {}
    units = question_units(question, index, t)
    total = sum(u.weight for u in units)
    if not units or total <= 0:
        return Receipt(
            query=question,
            vault=str(root),
            decision="refuse",
            candidates=[],
            redirects=[],
            skipped=[],
            evidence=Evidence(floor=floor),
            reason="the question has no content words to look up",
            index=index_info,
        )
    scores, meta_mask, content_mask = score(units, t, walk_window(max(k, 1) + len(passed)))
    targets, redirects, skipped = top_targets(scores, max(k, 1) + len(passed), t)
    # The lead over the runner-up is measured on the full ranking, before it is cut to k: with k=1
    # there would be no runner-up and every tie would look like a clear answer.
    everything = sorted(
        (x for x in targets.values() if t.pages[x.page_id].path not in passed),
        key=lambda x: (-x.score, t.pages[x.page_id].path),
    )
    reads = PageReads(index, root, units)
    # A top page whose file cannot be read now (its folder made unreadable: kept in the index as last
    # indexed) is passed over, as a deleted one is: it refused the question while a readable page
    # below it answered. Past MAX_LISTED such pages, the next one is refused, saying why.
    if len(everything) > 1 and len(passed) < MAX_LISTED:
        first = t.pages[everything[0].page_id].path
        reads.text(first)
        if first in reads.unread:
            more = {**passed, first: reads.unread[first]}
            return decide(question, k, index, t, floor, root, index_info, more)
    ranked = everything[: max(k, 1)]
    corpus_missing = [u.text for u in units if u.df == 0]
    # A word no page holds that a folder's name does ("Vendors/Zendesk/") is not one the vault never
    # writes: the receipt names the folder (the word as asked, not a translation of it).
    in_folders = {u.text: f for u in units if u.df == 0 and (f := t.folder_holding(u.alts[0])) is not None}
    if not ranked:
        return Receipt(
            query=question,
            vault=str(root),
            decision="refuse",
            candidates=[],
            redirects=redirects[:MAX_LISTED],
            skipped=skipped[:MAX_LISTED],
            evidence=Evidence(
                floor=floor,
                query_terms=[u.text for u in units],
                corpus_missing=corpus_missing,
                in_folders=in_folders,
                unread=passed,
            ),
            reason=reason_nothing(corpus_missing, t.n_pages, t.unread, in_folders),
            index=index_info,
        )
    # The field masks of the pages the receipt lists (a cited target's own page, when it scored, is one
    # of its contributors) or may list on a refusal (``closest``); the other walked pages' are never read.
    # The runner-up too at k = 1: a refusal's reason names it ("leads X by 7%"), and an agent reads the
    # list for the pages a reason names (D126, D128).
    shown = everything[: max(k, 2)]
    listed_pages = {pid for tgt in everything[: max(k, 2) + REACH] for pid in tgt.contributors}
    meta_hits = {pid: unit_bits(meta_mask[pid]) for pid in listed_pages if pid in meta_mask}
    content_hits = {pid: unit_bits(content_mask[pid]) for pid in listed_pages if pid in content_mask}
    # The cited (or closest) page's passage now; the runner-ups' when something reads them.
    citations = [citation(x, units, meta_hits, t, reads, now=i == 0) for i, x in enumerate(shown)]
    top = ranked[0]
    content = set().union(*(content_hits.get(pid, set()) for pid in top.contributors)) & top.matched
    fired = fired_triggers(top, units, index, t)
    effective = content | (fired & top.matched)
    # A word the title or aliases hold is present in every passage (the whole page is about it), and so
    # is one of a trigger the question expresses; a word only an unexpressed trigger holds is not (D53).
    titled = {pid: title_units(units, pid) for pid in top.contributors}
    about = {pid: titled[pid] | fired for pid in top.contributors}
    # The page's name written in several words is one name: "Priya Nair's birthday" holds the name once,
    # as "Priya's birthday" does, and a page that lacks the birthday is not two thirds of the answer.
    listed_units = units  # as the citations were made: the lines below reweigh the page's name
    units, total = name_once(units, question, top.page_id, t)
    mine = set(top.contributors)
    weighed, total, halved = untranslated(units, effective, mine, lambda p: reads.text(t.pages[p].path))
    units, total, wording = as_wording(weighed, units, effective, mine, question)
    page_cov = sum(units[i].weight for i in effective) / total
    passage_cov = max(
        passage_coverage(reads, pid, effective, units, about, total) for pid in top.contributors
    )
    coverage = (page_cov + passage_cov) / 2
    runner_up = everything[1] if len(everything) > 1 else None
    margin = (top.score - runner_up.score) / top.score if runner_up and top.score > 0 else 1.0
    clarity = 1 - MARGIN_SHARE + MARGIN_SHARE * min(1.0, margin / CLEAR_MARGIN)
    # A question that writes the top page's name and not the runner-up's says which it asks about, when
    # the page holds most of what else it asks: a name weighs heavily, and "王磊手机号" asks of 王磊's
    # page a number it may lack (D178).
    named_top = (
        named_alone(t, top.page_id, runner_up.page_id, question, units, reads.text)
        if clarity < 1 and runner_up and _holds_the_rest(units, effective, title_units(units, top.page_id))
        else None
    )
    clarity = 1.0 if named_top else clarity
    confidence = coverage * clarity
    # A citation that rests on triggers names the words only they hold: a trigger is someone's word
    # that this page answers (maybe an agent's), and the reader should see when the page's own text
    # would not have cleared the floor.
    if effective - content and confidence >= floor:
        own = (
            sum(units[i].weight for i in content) / total
            + max(passage_coverage(reads, pid, content, units, titled, total) for pid in top.contributors)
        ) / 2
        if own * clarity < floor:
            citations[0] = replace(
                citations[0], via_triggers=[units[i].text for i in sorted(effective - content)]
            )
    # "Other pages have it" must be true of a page that could be cited: a current page that is not
    # this one. Words held only by replaced pages or this page's own triggers are not listed.
    elsewhere = [
        u.text
        for i, u in enumerate(units)
        if i not in effective
        and any(pid not in mine and not t.pages[pid].replaced for pid in u.postings if pid in t.pages)
    ]
    # A single Han character is part of many words (周 of 周一, 周报, 周会): a page that matches nothing
    # else, and not by its title, has not been shown to be about the question.
    named = set().union(*(meta_hits.get(pid, set()) for pid in top.contributors))
    lone = confidence >= floor and _lone_characters(effective - named, effective, units)
    said_by_other = (
        named_speaker_lacks_words(question, units, reads.text(citations[0].path), citations[0].line)
        if confidence >= floor
        else None
    )
    # A question that names another page by its name (a person, a product: every word of its title or
    # file name, none of them a dictionary word) which this page never mentions asks about that page's
    # subject: 王磊的邮箱 is not answered by Sarah Chen's email.
    other_page = (
        named_page(units, effective, mine, t, mentioned_by_name(t, reads.text, mine))
        if confidence >= floor and not lone
        else None
    )
    # A word written only where the page points at the runner-up is that page's (D149, pointers.py).
    runner = (t.pages[runner_up.page_id].path, runner_up.page_id) if runner_up else None
    own = effective - set().union(*about.values()) if confidence >= floor and not lone else set()
    if pointer := pointed_away(reads.text, citations[0].path, units, own, effective, runner):
        citations[0] = as_missing(citations[0], pointer[0])
    # So is another page's whole name, written only beside a warning not to mix the two up ("别和
    # [[客户/明远证券]] 搞混"): the question asks about that page's subject (D177, D180, set_apart.py).
    set_apart = (
        named_where_pointed(reads.text, citations[0].path, units, own, effective, question, t, mine)
        if own and not (other_page or pointer)
        else None
    )
    # A question that names something the vault never mentions (MongoDB, 北京) asks about it: the page
    # its other words found is about something else ("MongoDB backup time" on the PostgreSQL backups
    # page, 北京办公室地址 on the Shanghai office's).
    asked = confidence >= floor and not (lone or other_page or set_apart)
    # An identifier's words count as held only as the page spells them: page→页面 is no page_id (D143).
    spelled = {i for i in effective if not units[i].translated.keys() & mine}
    unknown = unknown_name(units, question, index, spelled) if asked else None
    # A price asked (多少钱) is answered where the page states an amount beside the words it matched, or
    # where a trigger of the page asks that very price (D93).
    unpriced = (
        asked
        and not unknown
        and asks_price(question)
        and not states_price(citations[0].path, reads.text(citations[0].path), units, effective, question)
    )
    # An email address or a phone number asked is answered where the page states one (D114).
    contact = asks_contact(question) if asked and not (unknown or unpriced) else None
    uncontacted = contact if contact and not states_contact(contact, reads.text(citations[0].path)) else None
    # A vetoed page's words cover the question as far as words go; its confidence is none, so that a
    # phrasing, a coverage curve or a reader ranks it below every page that could be cited.
    word_confidence = confidence
    # A page whose file cannot be read now (its folder made unreadable, it may be gone) is cited from
    # nothing: the passage was empty and `krouter read` failed (a bug hunt).
    unread = reads.unread.get(citations[0].path) if confidence >= floor else None
    vetoes = (lone, said_by_other, other_page, pointer, set_apart, unknown, unpriced, uncontacted, unread)
    if any(vetoes):
        confidence = 0.0
    evidence = Evidence(
        confidence=round(confidence, 4),
        floor=floor,
        coverage=round(coverage, 4),
        page_coverage=round(page_cov, 4),
        passage_coverage=round(passage_cov, 4),
        margin=round(margin, 4),
        query_terms=[u.text for u in units],
        corpus_missing=corpus_missing,
        elsewhere_missing=elsewhere,
        untranslated=halved,
        wording=wording,
        in_folders=in_folders,
        unread=passed,
    )
    decision = "cite" if confidence >= floor else "refuse"
    names_runner_up = bool(pointer)  # a reason that names the runner-up lists it, at k = 1 too
    if unread:
        reason = (
            f"the closest page, {citations[0].path}, cannot be read now ({unread}): it is not cited from "
            f"the index's copy (the words' confidence {word_confidence:.0%}); `krouter status` lists what "
            "cannot be read"
        )
    elif lone:
        chars = quoted([units[i].text for i in sorted(effective)])
        reason = (
            f"the closest page, {citations[0].path}, matches only the single character(s) {chars}, which "
            f"{'is' if len(effective) == 1 else 'are'} part of many words: not enough to cite, whatever "
            f"the words' confidence ({word_confidence:.0%})"
        )
    elif other_page:
        reason = (
            f"the question names {other_page[0]!r}, the page {other_page[1]}, which {citations[0].path} never "
            f"mentions: it asks about another subject (the words' confidence {word_confidence:.0%})"
        )
    elif pointer:
        reason = pointer_reason(citations[0].path, *pointer, word_confidence)
    elif set_apart:
        reason = (
            f"the question names {set_apart[0]!r}, the page {set_apart[1]}, which {citations[0].path} "
            f"mentions only where it warns against mixing the two up: it asks about another subject (the "
            f"words' confidence {word_confidence:.0%})"
        )
        citations = named_second(
            citations, set_apart[1], everything, scores, listed_units, meta_hits, t, reads
        )
    elif unknown and unknown in in_folders:
        reason = (
            f"the question names {unknown!r}, which no page of the vault mentions{unread_note(t.unread)}, only "
            f"a folder's name ({in_folders[unknown]}/), and folders' names are not read: the closest page, "
            f"{citations[0].path}, never does (the words' confidence {word_confidence:.0%})"
        )
    elif unknown:
        reason = (
            f"the question names {unknown!r}, which no page of the vault mentions{unread_note(t.unread)}: the "
            f"closest page, {citations[0].path}, is about something else (the words' confidence {word_confidence:.0%})"
        )
    elif unpriced:
        reason = (
            f"the question asks a price, and {citations[0].path} states none beside the words it matched "
            f"(the words' confidence {word_confidence:.0%})"
        )
    elif uncontacted:
        reason = (
            f"the question asks for {uncontacted}, and {citations[0].path} states none (the words' "
            f"confidence {word_confidence:.0%})"
        )
    elif said_by_other:
        who = " and ".join(said_by_other)
        reason = (
            f"the question asks about {who}, but on {citations[0].path} (line {citations[0].line}) its words "
            f"are in another speaker's turn, not {who}'s (the words' confidence {word_confidence:.0%})"
        )
    else:
        second = t.pages[runner_up.page_id].path if runner_up else None
        tied = second is not None and evidence.margin < CLEAR_MARGIN / 2 and not named_top
        retired = _retired(units, effective, elsewhere, mine, t) if decision == "refuse" else []
        reason = page_reason(decision, citations, evidence, second, tied, t.unread, retired, named_top)
        # A refusal's reason names its runner-up ("leads X by 7%"): listed past k when need be.
        names_runner_up = decision == "refuse" and second is not None
    if not names_runner_up:
        citations = citations[: max(len(ranked), 2 if set_apart else 1)]
    if decision == "refuse":
        citations = by_passage(citations, everything, listed_units, reads, meta_hits, t)
    # Only the replacements that led to a page listed here (one elsewhere in the ranking would point
    # an agent at a page this answer is not about), and dead ends (a replaced page with no current
    # page) that scored as high as the top page: then the best match was replaced and the reader must
    # know; one further down that shares a filler word with the question ("use") is noise.
    listed = {c.path for c in citations}
    bar = ranked[0].score
    redirects = [
        r
        for r in redirects
        if r.to_path in listed or (r.to_path is None and scores[t.by_path[r.from_path]][0] >= bar)
    ][:MAX_LISTED]
    skipped = skipped[:MAX_LISTED]
    return Receipt(
        query=question,
        vault=str(root),
        decision=decision,
        candidates=citations,
        redirects=redirects,
        skipped=skipped,
        evidence=evidence,
        reason=reason,
        index=index_info,
    )


def _holds_the_rest(units: list[Unit], held: set[int], name: set[int]) -> bool:
    """True when the page holds at least half, by weight, of the question's words outside its ``name``."""
    rest = sum(u.weight for i, u in enumerate(units) if i not in name)
    return rest > 0 and sum(units[i].weight for i in held - name) >= rest / 2


def _lone_characters(in_text: set[int], matched: set[int], units: list[Unit]) -> bool:
    """True when everything the page matched is single Han characters found in its text only: one the
    title or aliases name (a page titled 茶 for 茶在哪) is what the page is about."""
    singles = all(len(units[i].text) == 1 and is_cjk(units[i].text) for i in matched)
    return bool(matched) and in_text == matched and singles


def _retired(
    units: list[Unit], effective: set[int], elsewhere: list[str], mine: set[int], t: Tables
) -> list[tuple[str, str]]:
    """The question words no current page's own text or fields hold, only replaced pages (each with one
    of them, named, as a page that replaced one may be found through it), and not the top page's
    (``mine``) triggers: not "never mentions", nor "another page has it". A refusal says so: without it,
    推送接口超时 between the payments and SMS timeout pages read "the question does not say which" (an
    agent-loop run). Worked out for a refusal's reason only."""
    return [
        (u.text, min(t.pages[pid].path for pid in holders))
        for i, u in enumerate(units)
        if i not in effective
        and u.text not in elsewhere
        and not any(u.postings[pid][1] for pid in mine if pid in u.postings)
        and (holders := [p for p in u.postings if p not in mine and p in t.pages and t.pages[p].replaced])
    ]
