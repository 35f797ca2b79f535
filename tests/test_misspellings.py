"""A question word typed with two letters swapped is read as the one word it can be that the vault holds
(D188), and only then: other slips, a name, a pinyin name, a word two held words are a swap from, a word
the dictionary knows and a question in another language stay as typed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from krouter import Router
from krouter.tokens.misspellings import respelling
from krouter.tokens.stems import stem
from tests.vault_files import write

_WORDS = (
    "garden budget holiday recipe invoice laptop printer dentist birthday football piano insurance mortgage "
    "passport hotel flight train museum library coffee bakery bicycle helmet camera lens battery charger "
    "keyboard monitor desk chair lamp plant tomato basil garlic onion pepper salt sugar flour butter cheese"
).split()
_ENGLISH = "a question in English about the notes"


def _filler(n: int = 30) -> dict[str, str]:
    pages = {}
    for i in range(n):
        words = [_WORDS[(i * 7 + j * 3) % len(_WORDS)] for j in range(16)]
        pages[f"Misc/Note {i:03d}.md"] = f"# Note {i:03d}\n\n{' '.join(words[:8])}.\n{' '.join(words[8:])}.\n"
    return pages


def _held(*words: str) -> Callable[[str], bool]:
    return {stem(w) for w in words}.__contains__


def test_a_swap_in_the_word_asked_about_cites_the_page_and_says_how_it_was_read(tmp_path: Path) -> None:
    """ "Januray", written as a name, read as a name no page mentions refused the page that answers."""
    vault = write(
        tmp_path,
        {
            **_filler(),
            "Policies/Freezer rules.md": (
                "# Freezer rules\n\n- The -80 freezer is defrosted in the second week of January.\n"
                "- Each member gets two racks.\n"
            ),
            "Policies/Dewar rules.md": "# Dewar rules\n\n- The nitrogen dewar is topped up on Mondays.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("Do we still defrost the freezer in the second week of Januray?")
        refused = router.decide("When is the nitrogen dewar topped up in Januray?")
    assert receipt.decision == "cite"
    assert receipt.top is not None and receipt.top.path == "Policies/Freezer rules.md"
    assert "januray→january" in receipt.top.matched
    # Where the page lacks the word read, the receipt lists it as read, not as typed: another page holds
    # "january", none "januray".
    assert refused.top is not None and refused.top.path == "Policies/Dewar rules.md"
    assert "januray→january" in refused.top.missing
    assert refused.evidence.elsewhere_missing == ["januray→january"]


def test_a_pinyin_name_is_read_as_the_name_not_as_a_slip(tmp_path: Path) -> None:
    """anming is a swap from naming; read as pinyin it is 安明, whose page answers."""
    assert respelling("anming", _ENGLISH, _held("naming")) is None
    vault = write(
        tmp_path,
        {
            **_filler(),
            "人/王安明.md": "# 王安明\n\n- Phone number: 139 1111 2222\n- 负责财务。\n",
            "Data/Bucket naming.md": "# Bucket naming\n\n- Bucket naming: team-env-purpose. Support phone number: 0800 123.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("anming phone number")
    assert receipt.top is not None and receipt.top.path == "人/王安明.md"


def test_only_a_swap_is_read() -> None:
    """Everyday words CC-CEDICT lacks were read as held words one other slip away (a cold review):
    fridge as ridge, rental as dental, faulty as faculty, bought as brought, absence as abuse."""
    assert respelling("earthqauke", _ENGLISH, _held("earthquake")) == ("earthquake", stem("earthquake"))
    assert respelling("recieve", _ENGLISH, _held("receive")) == ("receive", stem("receive"))
    assert respelling("fridge", _ENGLISH, _held("ridge")) is None
    assert respelling("rental", _ENGLISH, _held("dental")) is None
    assert respelling("faulty", _ENGLISH, _held("faculty")) is None
    assert respelling("bought", _ENGLISH, _held("brought")) is None
    assert respelling("absence", _ENGLISH, _held("abuse")) is None
    assert respelling("bakker", _ENGLISH, _held("baker")) is None


def test_a_word_two_held_words_are_a_swap_from_stays_as_typed() -> None:
    assert respelling("bolwing", _ENGLISH, _held("bowling")) == ("bowling", stem("bowling"))
    assert respelling("bolwing", _ENGLISH, _held("bowling", "blowing")) is None


def test_a_name_is_read_only_as_a_month_or_a_day() -> None:
    assert respelling("bolwing", "what did Bolwing say about the lanes?", _held("bowling")) is None
    assert respelling("januray", "is the defrost still in Januray?", _held("january")) == (
        "january",
        stem("january"),
    )


def test_a_question_in_another_language_is_not_read_as_english_slips() -> None:
    question = "Quelle est la date du januray meeting ?"
    assert respelling("januray", question, _held("january")) is None


def test_words_the_dictionary_knows_and_short_words_stay_as_typed() -> None:
    assert respelling("sacred", _ENGLISH, _held("scared")) is None
    assert respelling("untied", _ENGLISH, _held("united")) is None
    assert respelling("fomr", _ENGLISH, _held("form")) is None
