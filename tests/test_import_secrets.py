"""What ``krouter import`` writes holds no secret and no control character, wherever the transcript's
text lands on the page: the title, the file name, the frontmatter and the turns (a bug hunt)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from krouter.cli import app

SECRET, ROOT = "Zx9kq2Lm77", "Qw3rTy8877"


def _import(vault: Path, rows: list[dict[str, object]]) -> tuple[str, str]:
    """(file name, text) of the one page importing ``rows`` into ``vault`` writes."""
    src = vault.parent / "chat.jsonl"
    src.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    result = CliRunner().invoke(app, ["import", str(src), "--vault", str(vault)])
    assert result.exit_code == 0, result.output
    [page] = (vault / "Inputs" / "Sessions").glob("*.md")
    return page.name, page.read_text(encoding="utf-8")


def test_a_chinese_or_spoken_password_reaches_neither_title_nor_file_name_nor_body(vault: Path) -> None:
    name, text = _import(
        vault,
        [
            {"session_id": "s1", "role": "user", "content": f"数据库密码：{SECRET}，root密码={ROOT}"},
            {
                "session_id": "s1",
                "role": "assistant",
                "content": f"好的。For reference, password: {SECRET} and the admin password is {SECRET}",
            },
        ],
    )
    for secret in (SECRET, ROOT):
        assert secret.lower() not in name.lower() and secret not in text, (name, text)
    assert "title: 数据库密码：[REDACTED:password]，root密码=[REDACTED:password]" in text
    assert "the admin password is [REDACTED:password]" in text


def test_a_secret_found_once_is_redacted_in_every_turn_of_the_session(vault: Path) -> None:
    """A value found to be a secret in one turn was left in clear in the next one (a bug hunt)."""
    name, text = _import(
        vault,
        [
            {"session_id": "s2", "role": "user", "content": f"Why does login with {SECRET} fail?"},
            {"session_id": "s2", "role": "assistant", "content": f"Is password={SECRET} still valid?"},
        ],
    )
    assert SECRET not in text and SECRET.lower() not in name.lower(), (name, text)
    assert "title: Why does login with [REDACTED:password] fail?" in text


def test_prose_about_passwords_is_imported_as_it_was(vault: Path) -> None:
    _, text = _import(
        vault,
        [
            {
                "session_id": "s3",
                "role": "user",
                "content": "密码要求至少 12 位吗？the password policy is strict",
            },
            {"session_id": "s3", "role": "assistant", "content": "是的，密码要求至少 12 位。"},
        ],
    )
    assert "密码要求至少 12 位吗？the password policy is strict" in text and "REDACTED" not in text


def test_control_characters_of_a_transcript_never_reach_the_page(vault: Path) -> None:
    _, text = _import(
        vault,
        [
            {
                "session_id": "s4",
                "role": "user",
                "content": "Why \x1b[2J\x1b[31mred\x07 output?\r\nSecond line\x00",
            },
            {
                "session_id": "s4",
                "role": "assistant",
                "content": "Because of\x1b]0;title\x07 ANSI\x9b1m codes.",
            },
        ],
    )
    assert not any((ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in text), repr(text)
    assert "\\e" not in text and "\\u001b" not in text and "\\x07" not in text
    assert "**User**: Why red  output?\nSecond line" in text, text
    assert "title: Why red output? Second line" in text
