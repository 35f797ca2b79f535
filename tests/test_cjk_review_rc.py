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
