"""A cold review's Japanese and Korean questions: a question word or particle kept as content made the
right page "lack" a word, or let the page that happened to write the same particle answer."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from tests.vault_files import write

_JA = {
    "ja/決済.md": "# 決済APIのタイムアウト\n\n決済APIのタイムアウトは30秒です。\n",
    "ja/検索.md": "# 検索APIのタイムアウト\n\n検索APIのタイムアウトは5秒です。\n",
    "ja/大阪.md": "# 大阪オフィスの有給休暇\n\n大阪オフィスでは有給休暇が5日付与されます。\n",
    "ja/東京.md": "# 東京オフィスの有給休暇\n\n東京オフィスでは有給休暇が10日付与されます。\n",
}


def test_a_japanese_question_word_standing_apart_is_not_content(tmp_path: Path) -> None:
    """何秒 typed apart from the rest (決済 タイムアウト 何秒) was cut by jieba as a Chinese word: the
    question word stayed, "the vault never mentions '何秒'", and the right page was refused."""
    write(tmp_path, _JA)
    with Router(tmp_path) as router:
        timeout = router.ask("決済 タイムアウト 何秒")
        leave = router.ask("大阪 有給休暇は 何日？")
    assert timeout.decision == "cite" and timeout.top is not None and timeout.top.path == "ja/決済.md"
    assert timeout.top.missing == []
    assert leave.decision == "cite" and leave.top is not None and leave.top.path == "ja/大阪.md"
    assert leave.top.missing == []


_KO = {
    "ko/pay.md": "# 결제 서버 타임아웃\n\n결제 서버의 타임아웃은 30초입니다.\n타임아웃이 자주 나면 PG사 상태를 확인하세요.\n",
    "ko/log.md": "# 로그 서버 타임아웃\n\n로그 서버(Loki)의 쿼리 타임아웃은 2분입니다.\n",
    "ko/room.md": "# 회의실 예약\n\n회의실은 구글 캘린더에서 예약합니다.\n",
    "ko/card.md": "# 법인카드\n\n법인카드는 야근 식대로 12,000원까지 쓸 수 있습니다. 영수증은 말일까지 제출하세요.\n",
    "ko/deploy.md": "# 배포 도구\n\n배포는 Argo CD로 합니다.\n",
}


def test_a_korean_question_word_with_its_particle_is_not_content(tmp_path: Path) -> None:
    """언제까지, 얼마까지, 어디서, 뭘로: the vault writes 까지 (말일까지), so the ending was not cut and the
    question word was a word "the vault never mentions"; the right page was refused."""
    write(tmp_path, _KO)
    with Router(tmp_path) as router:
        receipt = router.ask("영수증은 언제까지 제출해요?")
        meal = router.ask("법인카드로 야근 식대 얼마까지예요?")
        room = router.ask("회의실 예약은 어디서 해요?")
        deploy = router.ask("배포는 뭘로 하나요?")
    for answer, path in (
        (receipt, "ko/card.md"),
        (meal, "ko/card.md"),
        (room, "ko/room.md"),
        (deploy, "ko/deploy.md"),
    ):
        assert answer.decision == "cite" and answer.top is not None and answer.top.path == path, answer.reason


def test_a_particle_only_a_neighbour_page_writes_is_not_the_word_asked(tmp_path: Path) -> None:
    """타임아웃이 was kept whole because the payment page writes 타임아웃이: the log server's page (타임아웃은)
    was said to lack it, and "what is the timeout?" was cited on the payment page alone."""
    write(tmp_path, _KO)
    with Router(tmp_path) as router:
        log = router.ask("Loki 타임아웃이 몇 분이에요?")
        which = router.ask("타임아웃이 얼마예요?")
    assert log.decision == "cite" and log.top is not None and log.top.path == "ko/log.md"
    assert log.top.missing == [] and "타임아웃" in log.top.matched
    assert which.decision == "refuse"
    assert which.candidates[0].matched == ["타임아웃"] and which.candidates[1].matched == ["타임아웃"]
