"""The quote checks of the one verification path (``verify``): is the quote on the page as a reader sees
it (after Unicode, markup and whitespace normalisation), is it a sentence rather than a fragment, and
which heading is it under. Lexical and cheap on purpose: the model (or agent) proposes, these decide."""

from __future__ import annotations

import re
import unicodedata

from krouter.lazy_pattern import lazy_pattern
from krouter.vault.templates import fenced_lines

MIN_WORDS = 4
MIN_CJK = 8
# A CJK sentence the quote closes with its end mark (。！？) is one with fewer: "下撤不要等天亮。" (descend,
# don't wait for daylight) is four words in seven characters (an agent-loop run's quote, refused as a
# fragment). A noun phrase as long ("订单主题分区") writes no such mark.
MIN_CJK_CLOSED = 6
_CLOSED = lazy_pattern(r"[。！？!?]\s*$")
MAX_QUOTE_CHARS = 600

_CJK_CHAR = lazy_pattern(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_WORD = lazy_pattern(r"[^\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
# Emphasis, highlight and code marks a model drops when it copies a sentence, table cell bars it turns
# into spaces, and the typographer's quotes and dashes it writes plainly (or the page does: it's and
# it’s, "--" and "—"); treated the same on both sides, so this cannot make a quote match words that are
# not there. A true answer refused for a curly apostrophe was refused for good (a cold review).
_MARKUP = str.maketrans(
    {"*": None, "`": None, "|": " ", **dict.fromkeys("‘’‚‛′ʼ", "'"), **dict.fromkeys("“”„‟″", '"')}
    | dict.fromkeys("‐‑‒–—―−", "-")
)
# A space beside a CJK character: Chinese is written unspaced, and a quote copied with spaces between its
# words ("未休完的年假 可以顺延到 次年三月底") is the page's sentence. Dropped on both sides alike.
_HAN_KANA = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_BESIDE_CJK = lazy_pattern(rf" (?={_HAN_KANA})|(?<={_HAN_KANA}) ")
# The mark a quote closes with, by what it says (after NFKC: ！ is !, ？ is ?, ； is ;). A model copying a
# Chinese sentence writes "." or "！" for its 。 (a bug hunt's quote, refused as "not on the page"); it
# may not turn a question into a statement, nor end a sentence the page runs on ("The limit is 30."
# of "30,000 kg": a cold review).
_CLOSING = {".": ".!。", "!": ".!。", "。": ".!。", "?": "?", ";": ";"}
# A number the quote's edge would cut in two: "30" of "30,000", "5 kg" of "3.5 kg".
_NUMBER_GOES_ON = lazy_pattern(r"[.,]\d")
_NUMBER_CAME_BEFORE = lazy_pattern(r"\d[.,]")
# Underscores that open or close emphasis (_two_, __two__), not those inside a name (max_retries);
# "==" of a highlight; a run of dashes ("--" for an en or em dash); a footnote's marker ([^1]).
_MARKS = lazy_pattern(r"(?<!\w)_+|_+(?!\w)|==|(?<=-)-+|\[\^[^\]\s]*\]")
_HEADING = lazy_pattern(r"\s*#")


def normalize_text(text: str) -> str:
    """NFKC, case-folded, Markdown emphasis marks dropped, whitespace runs collapsed to one space (none
    beside a CJK character)."""
    text = _MARKS.sub("", unicodedata.normalize("NFKC", text).casefold().translate(_MARKUP))
    return _BESIDE_CJK.sub("", " ".join(text.split()))


# What a reader of the page does not see: an HTML comment, an Obsidian comment (%%…%% on one line, or
# between two lines of %% alone), a link's target. Only a closed one: a lone "<!--" or "%%" in prose or
# code ("%5.1f%%") hid the rest of the page.
_HIDDEN = lazy_pattern(r"<!--.*?-->|%%[^%\n]+%%|^[ \t]*%%[ \t]*\n.*?^[ \t]*%%[ \t]*$", re.S | re.M)
_MD_LINK = lazy_pattern(r"(!?)\[([^\]\n]*)\]\([^)\n]*\)")
# A quote's or callout's marks at the start of each line ("> ", "> [!note]"): a sentence that runs on
# to the next line of a quote is one sentence to a reader.
_QUOTE_MARKS = lazy_pattern(r"^[ \t]*(?:>[ \t]?)+(?:\[![\w-]+\][+-]?[ \t]*)?", re.M)
# Struck-out text (~~…~~ on one line) is what the page says no longer holds: no answer.
_STRUCK = lazy_pattern(r"~~[^~\n]+~~")
_WIKI_LINK = lazy_pattern(r"!?\[\[(?:[^\]|\n]*\|)?([^\]\n]*)\]\]")
# A heading ends where its line does: a quote cannot run from a heading into the text below it.
_HEADING_LINE = lazy_pattern(r"^([ \t]{0,3}#{1,6}[ \t].*)$", re.M)
_STOP = "\x00"


def quote_on_page(quote: str, page_text: str) -> bool:
    """True when the normalised quote occurs in the page's normalised text as a reader sees it (comments
    and link targets left out, links by their labels), starting and ending at whole words (and whole
    numbers), closing where the page's sentence closes if it ends with a mark, and not running from a
    heading into the text below it. A cold review had fragments ("spresso machine in the kitche"), a
    bare link target and the start of an HTML comment accepted as the sentence that answers."""
    # The quote read the same way: one copied from the source, links and all, is the same words.
    q, closing = _without_closing(normalize_text(as_shown(quote)))
    if not q:
        return False
    text = normalize_text(_HEADING_LINE.sub(lambda m: f"{m.group(1)} {_STOP}", as_shown(page_text)))
    at = text.find(q)
    while at != -1:
        end = at + len(q)
        before, after = text[at - 1 : at], text[end : end + 1]
        starts = not (
            _cuts_a_word(before, q[0])
            or (q[0].isdigit() and _NUMBER_CAME_BEFORE.fullmatch(text, max(at - 2, 0), at))
        )
        if closing:
            ends = bool(after) and after in _CLOSING[closing]
        else:
            ends = not (_cuts_a_word(after, q[-1]) or (q[-1].isdigit() and _NUMBER_GOES_ON.match(text, end)))
        if starts and ends:
            return True
        at = text.find(q, at + 1)
    return False


def _without_closing(quote: str) -> tuple[str, str]:
    """A normalised quote without the one mark it closes with, and that mark ("" when it has none, or
    ends with an ellipsis: "..." is matched as written)."""
    if quote[-1:] in _CLOSING and not quote.endswith(".."):
        return quote[:-1].rstrip(), quote[-1]
    return quote, ""


def section_heading(quote: str, body: str) -> str:
    """The text of the heading (second level or deeper, outside code fences) over the line where the
    quote starts on the page's body, or "" (under the page's title, or the quote not found line by line)."""
    first = (
        _without_closing(normalize_text(as_shown(quote.strip().splitlines()[0])))[0] if quote.strip() else ""
    )
    if not first:
        return ""
    lines = body.splitlines()
    fenced = fenced_lines(lines)
    at = next((i for i, line in enumerate(lines) if first in normalize_text(as_shown(line))), None)
    for i in range(at - 1 if at is not None else -1, -1, -1):
        if i not in fenced and _HEADING_LINE.match(lines[i]):
            marks = lines[i].lstrip(" \t")
            text = marks.lstrip("#")
            return text.strip() if len(marks) - len(text) > 1 else ""
    return ""


def as_shown(text: str) -> str:
    """A page's text as a reader sees it: comments and struck-out text left out, links by their labels,
    quote marks off the lines they start."""
    text = _MD_LINK.sub(lambda m: m.group(2), _HIDDEN.sub(" ", text))
    text = _QUOTE_MARKS.sub("", _STRUCK.sub(" ", text))
    return _WIKI_LINK.sub(lambda m: m.group(1), text)


def _cuts_a_word(outside: str, edge: str) -> bool:
    """True when the quote's ``edge`` character and the page's character just ``outside`` it are two
    letters or digits of one word (a cut Chinese run is no cut: its words are not spaced)."""
    return bool(outside) and _WORD.match(outside) is not None and _WORD.match(edge) is not None


def same_passage(first: str, second: str, body: str) -> bool:
    """True when both quotes are the same sentence, or one passage of a page's body holds both: a block
    of lines between blank lines (a line of spaces, CRLF pages alike) and headings, so that a section
    under its own heading is a passage of its own even with no blank line before it."""
    # Without their closing marks: an agent's "…上线！" and the model's "…上线。" are one sentence.
    a, b = (_without_closing(normalize_text(as_shown(quote)))[0] for quote in (first, second))
    if not (a and b):
        return False
    return a == b or any(a in p and b in p for p in map(normalize_text, _blocks(as_shown(body))))


def _blocks(body: str) -> list[str]:
    blocks: list[list[str]] = [[]]
    for line in body.splitlines():
        if not line.strip() or _HEADING.match(line):
            blocks.append([])
        if line.strip():
            blocks[-1].append(line)
    return ["\n".join(block) for block in blocks if block]


def is_sentence(quote: str) -> bool:
    """At least four words, or eight CJK characters (six when the quote closes with a sentence's end
    mark; mixed text: a CJK character counts half a word)."""
    if len(quote) > MAX_QUOTE_CHARS:
        return False
    text = unicodedata.normalize("NFKC", quote)
    cjk = len(_CJK_CHAR.findall(text))
    words = len(_WORD.findall(text))
    closed = cjk >= MIN_CJK_CLOSED and _CLOSED.search(text) is not None
    return words >= MIN_WORDS or cjk >= MIN_CJK or closed or words + cjk / 2 >= MIN_WORDS
