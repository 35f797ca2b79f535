"""What a bug hunt on a Japanese and Korean vault of its own found (docs/decisions.md D228): a name, a
word written in hiragana, a chat mark, one character asked alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from krouter import Router
from tests.vault_files import write

HOUSE = {
    "팀/박지훈.md": "# 박지훈\n\n- 직무: 백엔드 개발\n- 전화번호: 010-1234-5678\n",
    "팀/디자인팀.md": "# 디자인팀\n\n박지은 님이 디자인팀 리드입니다. 회의는 화요일입니다.\n",
    "생활/부모님_댁.md": "# 부모님 댁\n\n부모님 댁은 고양시 일산에 있습니다. 관리비는 매달 23만원입니다.\n",
    "家族/連絡先.md": "# 連絡先\n\n大家の佐藤さんの電話番号：090-1111-2222\n\nやまだ小児科の電話番号：03-3333-4444\n",
    "家族/ごみ出し.md": "# ごみ出し\n\n燃えるごみは月曜日と木曜日。ごみの日は朝8時までに出す。\n",
    "家族/保育園.md": "# 保育園\n\nお迎えは18時まで。おむつは5枚持っていく。\n",
}


def test_a_korean_name_is_not_cut_where_its_last_syllable_cannot_be_a_particle(tmp_path: Path) -> None:
    """ "박지은 전화번호" was cited on 박지훈's page at 100%: 은 was cut as a topic particle, which follows a
    final consonant, and 지 has none."""
    with Router(write(tmp_path, HOUSE)) as router:
        receipt = router.decide("박지은 전화번호 알려줘")
        assert receipt.decision == "refuse", receipt.to_text()
        assert "박지은" in receipt.evidence.query_terms
        # A particle that fits its word is still cut (회의 ends in a vowel: 는).
        assert "회의" in router.decide("회의는 무슨 요일이야?").evidence.query_terms


@pytest.mark.parametrize(
    ("question", "page"),
    [
        ("やまだの電話番号は？", "家族/連絡先.md"),
        ("ごみの日はいつ？", "家族/ごみ出し.md"),
        ("おむつは何枚？", "家族/保育園.md"),
    ],
)
def test_a_japanese_word_written_in_hiragana_is_content(tmp_path: Path, question: str, page: str) -> None:
    """Hiragana was read as grammar alone: ごみ, おむつ and the name やまだ were dropped ("no content
    words", or the landlord's number cited for やまだ's)."""
    with Router(write(tmp_path, HOUSE)) as router:
        receipt = router.decide(question)
    assert receipt.candidates and receipt.candidates[0].path == page, receipt.to_text()
    assert receipt.decision == "cite", receipt.to_text()


def test_a_name_in_hiragana_the_vault_never_mentions_is_not_answered_by_another_s_number(
    tmp_path: Path,
) -> None:
    """ "すずきさんの電話番号は？" (no Suzuki in the vault) cited the landlord's number at 100%."""
    with Router(write(tmp_path, HOUSE)) as router:
        receipt = router.decide("すずきさんの電話番号は？")
    assert receipt.decision == "refuse", receipt.to_text()
    assert "すずき" in receipt.evidence.corpus_missing


def test_grammar_in_hiragana_is_still_grammar(tmp_path: Path) -> None:
    """Only a word: a question's particles, endings, demonstratives and question words stay out."""
    with Router(write(tmp_path, HOUSE)) as router:
        terms = router.decide("あのごみの日はいつですか？").evidence.query_terms
    assert "ごみ" in terms
    assert not {"あの", "いつ", "ですか", "いつですか"} & set(terms), terms
    from krouter.tokens.terms import query_terms

    for question, words in (
        ("あしたのごみは何？", ["ごみ"]),  # two nouns joined by の; あした says when
        ("やきのりを買う", ["やきのり"]),  # の inside a word
        ("たなかさんのいえはどこ", ["たなか", "いえ"]),
        ("ちゅうもんしたいです", ["ちゅうもん"]),  # two endings
        ("だいじょうぶですか", []),
        ("かにはどこ", ["かに"]),  # a word of two keeps its last character
    ):
        assert [t.term for t in query_terms(question)] == words, question


@pytest.mark.parametrize(
    ("question", "phrasing", "page"),
    [
        ("how much is our rent?", "家賃はいくら？", "家族/家賃.md"),
        ("how much is the apartment maintenance fee?", "아파트 관리비 얼마?", "생활/관리비.md"),
    ],
)
def test_an_english_question_with_a_japanese_or_korean_translation_is_answered(
    tmp_path: Path, question: str, phrasing: str, page: str
) -> None:
    """No dictionary of ours links English to Japanese or Korean: the agent's translation is the only
    bridge, as for a question in a language KRouter cannot read. It was refused as holding "none of the
    question's own words", and the refusal told the agent to translate: a loop."""
    pages = {
        **HOUSE,
        "家族/家賃.md": "# 家賃\n\n家賃は毎月8万5千円、27日に振り込む。\n",
        "생활/관리비.md": "# 관리비\n\n아파트 관리비는 매달 23만원입니다. 자동이체로 냅니다.\n",
    }
    with Router(write(tmp_path, pages)) as router:
        receipt = router.ask(question, also=[phrasing])
        assert receipt.decision == "cite" and receipt.top is not None, receipt.to_text()
        assert receipt.top.path == page
        # Where the dictionary links the two (English and a Chinese page), the question still needs a
        # word of its own there: the phrasing does not vouch alone.
        receipt = router.ask("how often is the garage swept", also=["垃圾什么时候收"])
    assert receipt.decision == "refuse", receipt.to_text()


def test_a_question_whose_one_word_is_a_single_character_is_looked_up(tmp_path: Path) -> None:
    """ "お迎えは何時までですか？" (迎 on the nursery's page) was turned away before the vault was asked, as
    having no content words: a single character counts where the vault holds it."""
    from typer.testing import CliRunner

    from krouter.cli import app

    vault = write(tmp_path / "v", HOUSE)
    result = CliRunner().invoke(app, ["ask", "お迎えは何時までですか？", "--vault", str(vault), "--json"])
    assert result.exit_code in (0, 3), result.output  # cited, or refused by the vault
    assert "no content words" not in result.output and '"迎"' in result.output, result.output
    # Grammar alone is still turned away.
    result = CliRunner().invoke(app, ["ask", "的了吗", "--vault", str(vault)])
    assert result.exit_code == 2 and "no content words" in result.output


def test_korean_chat_marks_are_no_words(tmp_path: Path) -> None:
    """ "관리비 얼마야 ㅎㅎ" was refused as naming 'ᄒᄒ', a word the vault never mentions (NFKC makes ㅎ a
    conjoining letter); glued to a word (회의실ㅠㅠ) it hid that word. A question typed decomposed (NFD)
    keeps its syllables."""
    import unicodedata

    with Router(write(tmp_path, HOUSE)) as router:
        for question in (
            "관리비 얼마야 ㅎㅎ",
            "관리비ㅋㅋ 얼마야",
            unicodedata.normalize("NFD", "관리비 얼마야 ㅠㅠ"),
        ):
            receipt = router.decide(question)
            assert receipt.evidence.query_terms == ["관리비"], (question, receipt.evidence.query_terms)
            assert receipt.candidates[0].path == "생활/부모님_댁.md"


def test_a_long_line_s_snippet_finds_a_word_written_in_half_width_katakana(tmp_path: Path) -> None:
    """A line over the snippet's width showed its first characters, not the answer, when the answer was
    written in half-width katakana (ﾄﾞﾗｲﾔｰ): the line was searched without NFKC, the question's terms
    with it."""
    line = (
        "家電の保証メモ："
        + "テレビは実家からもらったもので保証書なし。" * 14
        + "ﾄﾞﾗｲﾔｰはﾊﾟﾅｿﾆｯｸ、保証は2027年3月まで。"
    )
    with Router(write(tmp_path, {**HOUSE, "家族/家電の保証.md": f"# 家電の保証\n\n{line}\n"})) as router:
        receipt = router.decide("パナソニックのドライヤーの保証")
    top = receipt.candidates[0]
    assert top.path == "家族/家電の保証.md"
    assert "ﾄﾞﾗｲﾔｰはﾊﾟﾅｿﾆｯｸ" in top.snippet and top.snippet.startswith("…"), top.snippet


@pytest.mark.parametrize("question", ["관리비 230000원 맞아?", "관리비 23만원 맞아?", "관리비 23 만원 맞아?"])
def test_a_korean_amount_counted_in_man_is_its_number(tmp_path: Path, question: str) -> None:
    """ "관리비 230000원 맞아?" named the number a word the vault never mentions on the page writing 23만원:
    Korean counts in 만 (ten thousand) as Chinese does in 万."""
    with Router(write(tmp_path, HOUSE)) as router:
        receipt = router.decide(question)
    assert receipt.candidates[0].path == "생활/부모님_댁.md", receipt.to_text()
    assert not receipt.evidence.corpus_missing, receipt.to_text()


def test_a_korean_counter_after_a_number_is_read_as_the_counter(tmp_path: Path) -> None:
    """ "대회의실 10명이 쓸 수 있어?" was refused, "never mentions '명이'", on the page writing 대회의실(10명),
    and "분리수거 지하 1층에서 해?" lacked '층' on the page writing 지하 1층에서: a counter glued to its
    particle, in the question and on the page."""
    pages = {
        **HOUSE,
        "팀/회의실.md": "# 회의실\n\n대회의실(10명)과 소회의실(4명)이 있습니다. 예약은 캘린더로.\n",
        "생활/분리수거.md": "# 분리수거\n\n분리수거는 지하 1층에서 합니다. 화요일과 금요일.\n",
    }
    with Router(write(tmp_path, pages)) as router:
        for question, page in (
            ("대회의실 10명이 쓸 수 있어?", "팀/회의실.md"),
            ("분리수거 지하 1층에서 해?", "생활/분리수거.md"),
        ):
            receipt = router.decide(question)
            assert receipt.top is not None and receipt.top.path == page, receipt.to_text()
            assert not receipt.top.missing, receipt.to_text()


def test_a_word_in_hiragana_meets_it_in_katakana(tmp_path: Path) -> None:
    """ごみ and ゴミ are one word, written either way: once ごみ counted as a word, "ごみ袋はいくら？" was
    refused on the page titled ゴミ袋 (which states the price) for lacking it."""
    pages = {
        **HOUSE,
        "家族/ゴミ袋の買い置き.md": "# ゴミ袋の買い置き\n\n区指定のゴミ袋は洗面所の下の棚。10枚入り400円。\n",
    }
    with Router(write(tmp_path, pages)) as router:
        receipt = router.decide("ごみ袋はいくら？")
        assert receipt.decision == "cite" and receipt.top is not None, receipt.to_text()
        assert receipt.top.path == "家族/ゴミ袋の買い置き.md" and not receipt.top.missing
        assert router.decide("オムツは何枚？").candidates[0].path == "家族/保育園.md"


REVIEWED = {
    "hoken.md": "# 保険証\n\n保険証は寝室の引き出しにある。\n",
    "seikyu.md": "# 請求書\n\n請求書のしめきりは毎月25日まで。\n",
    "kaigi.md": "# 会議室\n\n会議室のよやくは総務のシステムで行う。会議の準備は前日までに資料を共有する。\n",
    "keihi.md": "# 経費\n\n経費の精算は月末までに申請する。\n",
    "spec.md": "# 決済APIの仕様\n\n新しい仕様の締め切りは3月10日です。\n",
    "kanri.md": "# 管理会社\n\n管理人さんの電話番号は03-1111-2222。\n",
    "vacation.md": "# 有給休暇\n\n有給休暇は年間20日です。\n",
    "deploy.md": "# Deploy\n\nWe deploy on Tuesdays.\n",
    "kz.md": "# 日志\n\n应用日志保留30天。\n",
}


@pytest.mark.parametrize(
    "question",
    [
        "請求書のしめきりはいつまで？",
        "会議室のよやくはどこでする？",
        "どうしたら経費を精算できる？",
        "ところで保険証はどこ？",
        "えっと、保険証はどこ？",
        "もしもし、保険証はどこ？",
        "会議のために何を準備する？",
        "新仕様の締め切りはいつ？",
        "管理人さんの電話番号は？",
    ],
)
def test_grammar_fillers_and_titles_are_not_words_a_page_lacks(tmp_path: Path, question: str) -> None:
    """A cold review of the hiragana and honorific rules: each was cited before them and refused after,
    for a "word" that was grammar (しめきりはいつ, どうしたら, ため), a filler (えっ, もしもし), or a name
    read from a title or a kanji bigram (管理人さん as 理人, 仕様 as 新仕 and 様)."""
    with Router(write(tmp_path, REVIEWED)) as router:
        receipt = router.decide(question)
    assert receipt.decision == "cite", receipt.to_text()
    # A kanji bigram where two words meet (新仕 of 新仕様) is still named; no hiragana is.
    assert not [w for w in receipt.evidence.corpus_missing if "\u3041" <= w[0] <= "\u3096"], receipt.to_text()


@pytest.mark.parametrize("question", ["Kafka的保留期是多久？", "日志保留多久？", "交通费报销上限"])
def test_a_chinese_question_s_japanese_phrasing_does_not_vouch_alone(tmp_path: Path, question: str) -> None:
    """Chinese and Japanese share kanji, so a Chinese question's own words must reach the page its
    Japanese phrasing found (a cold review: cited on the vacation page at 100%)."""
    with Router(write(tmp_path, REVIEWED)) as router:
        receipt = router.decide(question, also=["有給休暇は何日？"])
    assert receipt.decision == "refuse" or receipt.top is None or receipt.top.path != "vacation.md", (
        receipt.to_text()
    )


def test_a_japanese_or_korean_status_that_says_not_yet_keeps_the_page_current(tmp_path: Path) -> None:
    """廃止しない ("will not be abolished"), 廃止予定 ("to be abolished") and 폐기 예정 were read as 廃止 and 폐기
    by their first characters, and current pages refused (a cold review)."""
    from krouter.vault.page import parse_page

    for status in ("廃止しない", "廃止予定", "폐기 예정", "却下された案を修正して承認"):
        assert not parse_page("a.md", f"---\nstatus: {status}\n---\nText.\n").replaced, status
    for status in ("廃止されました", "폐기됨", "廃止済み"):
        assert parse_page("a.md", f"---\nstatus: {status}\n---\nText.\n").replaced, status
