"""A vault moved or renamed keeps its teaching history: the folder named with --vault stands in for the
recorded one once that is gone (``krouter.learner.stand_in``); ``learn --list`` lists the default vault's
history, as every other command takes it, and names each row's vault when no vault is set at all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from learn_vault import CODE_REVIEW, GOOD_QUOTE, MERGE_Q, PAGES, PAYMENTS, SEARCH_Q, snapshot, write_vault
from typer.testing import CliRunner

from krouter.cli import app
from krouter.learner import pending, teach
from krouter.routing.router import Router
from krouter.vault.page import parse_page

STRIPE_QUOTE = "The read timeout for Stripe calls is 10 seconds."


@pytest.fixture(autouse=True)
def held_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KROUTER_NO_QUERY_LOG", raising=False)
    assert run("config", "set", "pending_triggers", "all")[0] == 0


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(app, list(args))
    return res.exit_code, res.output


def hold(vault: Path) -> str:
    """An agent's pick of MERGE_Q on CODE_REVIEW, held: its pending id."""
    with Router(vault) as router:
        result = teach.teach(router, MERGE_Q, CODE_REVIEW, GOOD_QUOTE, client="agent")
    assert result.status == "pending" and result.pending_id, result.to_text()
    return result.pending_id


def accepted(vault: Path) -> str:
    """MERGE_Q held and accepted: the run id that wrote it."""
    pid = hold(vault)
    code, out = run("learn", "--accept", pid, "--vault", str(vault))
    assert code == 0, out
    return out.split("(run ", 1)[1].split(";", 1)[0]


def listed(*args: str) -> list[dict[str, object]]:
    code, out = run("learn", "--list", "--json", *args)
    assert code == 0, out
    return json.loads(out)


def test_a_moved_vault_lists_its_history_saying_where_it_was_recorded(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    run_id = accepted(old)
    moved = old.rename(tmp_path / "notes-2024")
    [row] = listed("--vault", str(moved))
    assert (row["run_id"], row["vault"], row["recorded_vault"]) == (run_id, str(moved), str(old))
    code, out = run("learn", "--list", "--vault", str(moved))
    assert code == 0 and f"{run_id}  " in out and f"(recorded in {old}, not there now)" in out, out


def test_a_run_of_a_moved_vault_is_undone_byte_for_byte_in_the_folder_named(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    before = snapshot(old)
    run_id = accepted(old)
    moved = old.rename(tmp_path / "notes-2024")
    code, out = run("learn", "--undo", run_id, "--vault", str(moved))
    assert code == 0 and "restored byte for byte" in out and f"undone in {moved}" in out, out
    assert snapshot(moved) == before


def test_without_vault_the_undo_of_a_moved_vault_says_how_to_name_it(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    run_id = accepted(old)
    old.rename(tmp_path / "notes-2024")
    code, out = run("learn", "--undo", run_id)
    assert code == 1 and f"krouter learn --undo {run_id} --vault DIR" in out, out


def test_a_folder_that_lacks_the_run_s_pages_does_not_stand_in_for_its_vault(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    before = snapshot(old)
    run_id = accepted(old)
    moved = old.rename(tmp_path / "notes-2024")
    other = write_vault(tmp_path / "other", {"a.md": "# A\n\nSomething else entirely.\n"})
    untouched = snapshot(other)
    code, out = run("learn", "--undo", run_id, "--vault", str(other))
    assert code == 2 and "holds none of the run's pages" in out, out
    assert snapshot(other) == untouched and listed("--vault", str(other)) == []
    # Refused, not counted as done: the right folder still undoes it.
    code, out = run("learn", "--undo", run_id, "--vault", str(moved))
    assert code == 0 and snapshot(moved) == before, out


def test_a_hold_of_a_moved_vault_is_accepted_in_the_folder_named(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    pid = hold(old)
    moved = old.rename(tmp_path / "notes-2024")
    [row] = listed("--vault", str(moved))
    assert row["pending_id"] == pid and row["pending"] is True
    code, out = run("learn", "--accept", pid, "--vault", str(moved))
    assert code == 0 and out.startswith(f"accepted pending {pid}: written"), out
    assert parse_page(CODE_REVIEW, (moved / CODE_REVIEW).read_text()).triggers == [MERGE_Q]
    assert not (tmp_path / "notes").exists()


def test_accepting_a_moved_vault_s_hold_closes_its_twin_held_there_too(tmp_path: Path) -> None:
    # Closed only in the folder named, the twin stayed listed as pending, and its own accept said
    # "the hold is closed" and left it open.
    old = write_vault(tmp_path / "notes", PAGES)
    pid = hold(old)
    path = pending.pending_path()
    twin = {**json.loads(path.read_text(encoding="utf-8").splitlines()[0]), "pending": "ptwin0001"}
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(twin) + "\n")
    moved = old.rename(tmp_path / "notes-2024")
    code, out = run("learn", "--accept", pid, "--vault", str(moved))
    assert code == 0, out
    assert [r["pending"] for r in listed("--vault", str(moved))] == [False]
    assert [r["pending"] for r in listed()] == [False]
    code, out = run("learn", "--accept", "ptwin0001", "--vault", str(moved))
    assert code == 1 and "was written already" in out, out


def test_a_gone_vault_s_hold_of_a_pick_accepted_in_the_moved_vault_is_closed_by_its_own_accept(
    tmp_path: Path,
) -> None:
    # Ending it with the accept of the moved vault's own hold also ended a copy's on a drive not plugged
    # in (the next test): nothing tells the two apart. Its own accept closes it, and says so.
    old = write_vault(tmp_path / "notes", PAGES)
    before_move = hold(old)
    moved = old.rename(tmp_path / "notes-2024")
    after_move = hold(moved)
    code, out = run("learn", "--accept", after_move, "--vault", str(moved))
    assert code == 0, out
    code, out = run("learn", "--accept", before_move, "--vault", str(moved))
    assert code == 3 and f"pending {before_move} closed, nothing written: already a trigger" in out, out
    assert [r["pending"] for r in listed("--vault", str(moved))] == [False]


def test_accepting_a_hold_leaves_a_twin_of_a_copy_whose_drive_is_away_pending(tmp_path: Path) -> None:
    # A review: the accept in the vault, which never moved, ended the twin hold of a copy on a drive not
    # plugged in (on macOS its folder under /Volumes is gone) as written; back, the copy's page lacked
    # the trigger, its list was empty, and its accept said "was written already".
    vault = write_vault(tmp_path / "notes", PAGES)
    copy = shutil.copytree(vault, tmp_path / "usb" / "notes")
    mine, theirs = hold(vault), hold(copy)
    away = copy.rename(tmp_path / "usb-away")
    code, out = run("learn", "--accept", mine, "--vault", str(vault))
    assert code == 0, out
    copy = away.rename(tmp_path / "usb" / "notes")
    assert [(r["pending_id"], r["pending"]) for r in listed("--vault", str(copy))] == [(theirs, True)]
    code, out = run("learn", "--accept", theirs, "--vault", str(copy))
    assert code == 0 and out.startswith(f"accepted pending {theirs}: written"), out
    assert parse_page(CODE_REVIEW, (copy / CODE_REVIEW).read_text()).triggers == [MERGE_Q]


def test_a_moved_vault_s_hold_its_checks_now_refuse_is_said_to_stay_pending(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    pid = hold(old)
    moved = old.rename(tmp_path / "notes-2024")
    page = moved / CODE_REVIEW
    page.write_text(page.read_text().replace("tags: [process]\n", "tags: [process]\nstatus: superseded\n"))
    code, out = run("learn", "--accept", pid, "--vault", str(moved))
    assert code == 3 and f"pending {pid} not written, it stays pending" in out, out
    assert [r["pending"] for r in listed("--vault", str(moved))] == [True]


def test_accepting_a_hold_whose_vault_is_gone_blames_the_hold_not_config_toml(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    pid = hold(old)
    old.rename(tmp_path / "notes-2024")
    other = write_vault(tmp_path / "other", {"a.md": "# A\n"})
    assert run("config", "set", "vault", str(other))[0] == 0
    code, out = run("learn", "--accept", pid)
    assert code == 2 and "config.toml" not in out, out
    assert f"the vault pending {pid} was held in" in out and f"--accept {pid} --vault DIR" in out, out


def test_a_hold_whose_vault_is_gone_is_rejected_without_naming_a_vault(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    pid = hold(old)
    old.rename(tmp_path / "gone")
    code, out = run("learn", "--reject", pid)
    assert code == 0 and out.startswith(f"rejected pending {pid}: nothing written"), out
    [row] = listed()
    assert row["rejected"] is True and row["pending"] is False


def test_an_undo_in_a_gone_vault_does_not_bar_teaching_in_a_folder_nobody_named(tmp_path: Path) -> None:
    # Teaching never lets a folder stand in: the owner's no was said of the vault, and a copy may be
    # anything (the late review).
    old = write_vault(tmp_path / "notes", PAGES)
    run_id = accepted(old)
    assert run("learn", "--undo", run_id)[0] == 0
    moved = old.rename(tmp_path / "notes-2024")
    with Router(moved) as router:
        again = teach.teach(router, MERGE_Q, CODE_REVIEW, GOOD_QUOTE, client="agent")
    assert again.status == "pending", again.to_text()


def test_a_gone_vault_s_hold_is_not_found_when_teaching_in_the_folder(tmp_path: Path) -> None:
    # Found, it was taken for this pick's own hold (or, the nightly model's, a second source) in a folder
    # the owner never named for the gone vault; --list still shows it there.
    old = write_vault(tmp_path / "notes", PAGES)
    pid = hold(old)
    moved = old.rename(tmp_path / "notes-2024")
    assert pending.open_holds(moved) == []
    assert hold(moved) != pid
    assert {r["pending_id"] for r in listed("--vault", str(moved))} >= {pid}


def test_a_copy_made_before_the_run_does_not_stand_in_for_it(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    backup = shutil.copytree(old, tmp_path / "notes-backup")
    before = snapshot(old)
    run_id = accepted(old)
    away = old.rename(tmp_path / "away")
    old.mkdir()  # the mount point of a drive not mounted: not a vault gone
    code, out = run("learn", "--undo", run_id, "--vault", str(backup))
    assert code == 2 and "empty (a drive not mounted?)" in out, out
    old.rmdir()
    code, out = run("learn", "--undo", run_id, "--vault", str(backup))
    assert code == 2 and "holds none of the run's pages" in out, out
    assert listed("--vault", str(backup)) == []  # its hold, written, is judged by the run
    assert snapshot(backup) == before
    # Neither counted as done: the vault, back, gets its trigger undone.
    away.rename(old)
    code, out = run("learn", "--undo", run_id)
    assert code == 0 and snapshot(old) == before, out


def test_a_folder_holding_another_run_s_trigger_does_not_stand_in_for_this_run(tmp_path: Path) -> None:
    # Any record of the gone vault was enough: a copy holding an earlier run's trigger stood in for a
    # later run whose page it holds in another form, and that run was marked done there.
    old = write_vault(tmp_path / "notes", PAGES)
    with Router(old) as router:
        earlier = teach.teach(router, SEARCH_Q, PAYMENTS, STRIPE_QUOTE, client="agent")
    code, out = run("learn", "--accept", str(earlier.pending_id), "--vault", str(old))
    assert code == 0, out
    copy = shutil.copytree(old, tmp_path / "notes-copy")
    with (copy / CODE_REVIEW).open("a", encoding="utf-8") as f:
        f.write("An edit of the copy's own.\n")
    run_id = accepted(old)
    moved = old.rename(tmp_path / "notes-2024")
    code, out = run("learn", "--undo", run_id, "--vault", str(copy))
    assert code == 2 and "holds none of the run's pages" in out, out
    code, out = run("learn", "--undo", run_id, "--vault", str(moved))
    assert code == 0 and "restored byte for byte" in out, out


def test_a_run_undone_in_a_copy_is_undone_in_the_moved_vault_too(tmp_path: Path) -> None:
    old = write_vault(tmp_path / "notes", PAGES)
    before = snapshot(old)
    run_id = accepted(old)
    moved = old.rename(tmp_path / "notes-2024")
    copy = shutil.copytree(moved, tmp_path / "notes-copy")
    code, out = run("learn", "--undo", run_id, "--vault", str(copy))
    assert code == 0 and snapshot(copy) == before, out
    code, out = run("learn", "--undo", run_id, "--vault", str(moved))
    assert code == 0 and "restored byte for byte" in out and snapshot(moved) == before, out
    # Asked again in the copy: undone there already, said so.
    code, out = run("learn", "--undo", run_id, "--vault", str(copy))
    assert code == 0 and "undone already" in out and snapshot(copy) == before, out


def test_a_run_undone_in_the_moved_vault_is_listed_there_as_undone(tmp_path: Path) -> None:
    # Undone, the folder no longer held what the run wrote, so it stood in for nothing: the run left
    # its list ("nothing taught yet"), where the original path lists it as undone.
    old = write_vault(tmp_path / "notes", PAGES)
    run_id = accepted(old)
    moved = old.rename(tmp_path / "notes-2024")
    assert run("learn", "--undo", run_id, "--vault", str(moved))[0] == 0
    [row] = listed("--vault", str(moved))
    assert (row["run_id"], row["undone"], row["recorded_vault"]) == (run_id, True, str(old))
    code, out = run("learn", "--list", "--vault", str(moved))
    assert code == 0 and f"{run_id}  " in out and out.rstrip().endswith("(undone)"), out


def test_a_run_undone_in_a_copy_is_listed_undone_in_the_copy_alone(tmp_path: Path) -> None:
    # The moved vault still holds the trigger: it was listed as undone there, and not at all in the copy.
    old = write_vault(tmp_path / "notes", PAGES)
    run_id = accepted(old)
    moved = old.rename(tmp_path / "notes-2024")
    copy = shutil.copytree(moved, tmp_path / "notes-copy")
    assert run("learn", "--undo", run_id, "--vault", str(copy))[0] == 0
    assert [(r["run_id"], r["undone"]) for r in listed("--vault", str(copy))] == [(run_id, True)]
    assert [(r["run_id"], r["undone"]) for r in listed("--vault", str(moved))] == [(run_id, False)]
    assert run("learn", "--undo", run_id, "--vault", str(moved))[0] == 0
    assert [(r["run_id"], r["undone"]) for r in listed("--vault", str(moved))] == [(run_id, True)]


def test_a_new_vault_at_an_old_path_keeps_its_own_bytes_when_the_old_run_is_undone(tmp_path: Path) -> None:
    # History follows the path; the new vault's pages are guarded by undo's own per-page checks.
    old = write_vault(tmp_path / "notes", PAGES)
    run_id = accepted(old)
    old.rename(tmp_path / "notes-2024")
    fresh = write_vault(tmp_path / "notes", {CODE_REVIEW: "# Code review\n\nA new vault's own page.\n"})
    before = snapshot(fresh)
    code, out = run("learn", "--undo", run_id)
    assert code == 0 and snapshot(fresh) == before, out


def test_a_new_vault_at_an_old_path_replaces_a_hold_quoting_what_its_page_no_longer_says(
    tmp_path: Path,
) -> None:
    # The old vault's hold was found again and its id given back; its quote is not on the new page, so
    # it could never be accepted, and rejecting it would have barred the question for good.
    old = write_vault(tmp_path / "notes", PAGES)
    stale = hold(old)
    old.rename(tmp_path / "notes-2024")
    three = GOOD_QUOTE.replace("two", "three")
    fresh = write_vault(
        tmp_path / "notes", {**PAGES, CODE_REVIEW: PAGES[CODE_REVIEW].replace("two", "three")}
    )
    with Router(fresh) as router:
        result = teach.teach(router, MERGE_Q, CODE_REVIEW, three, client="agent")
    assert result.status == "pending" and result.pending_id != stale, result.to_text()
    assert f"it takes the place of pending {stale}, whose quote is no longer on the page" in result.to_text()
    rows = {r["pending_id"]: r for r in listed("--vault", str(fresh))}
    assert (
        rows[stale]["superseded_by"] == f"pending {result.pending_id}" and rows[result.pending_id]["pending"]
    )
    code, out = run("learn", "--list", "--vault", str(fresh))
    said = (
        f"its quote no longer on the page; taken over by a later teaching of it, pending {result.pending_id}"
    )
    assert said in out and "passed every check" not in out, out
    code, out = run("learn", "--accept", str(result.pending_id), "--vault", str(fresh))
    assert code == 0, out
    assert parse_page(CODE_REVIEW, (fresh / CODE_REVIEW).read_text()).triggers == [MERGE_Q]


def two_vaults(tmp_path: Path) -> tuple[Path, Path, str, str]:
    a, b = write_vault(tmp_path / "a", PAGES), write_vault(tmp_path / "b", PAGES)
    return a, b, hold(a), hold(b)


def test_list_without_vault_lists_the_default_vault_s_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, in_a, in_b = two_vaults(tmp_path)
    assert run("config", "set", "vault", str(a))[0] == 0
    assert [r["pending_id"] for r in listed()] == [in_a]
    code, out = run("learn", "--list")
    assert code == 0 and in_a in out and in_b not in out, out
    monkeypatch.setenv("KROUTER_VAULT", str(b))
    assert [r["pending_id"] for r in listed()] == [in_b]


def test_list_with_no_vault_set_names_each_row_s_vault(tmp_path: Path) -> None:
    a, b, in_a, in_b = two_vaults(tmp_path)
    assert {(r["pending_id"], r["vault"]) for r in listed()} == {(in_a, str(a)), (in_b, str(b))}
    code, out = run("learn", "--list")
    assert code == 0, out
    assert f"{CODE_REVIEW} (in {a})" in out and f"{CODE_REVIEW} (in {b})" in out, out


def test_list_of_a_default_vault_that_is_not_there_says_where_it_came_from(tmp_path: Path) -> None:
    gone = write_vault(tmp_path / "gone", PAGES)
    assert run("config", "set", "vault", str(gone))[0] == 0
    gone.rename(tmp_path / "elsewhere")
    code, out = run("learn", "--list")
    assert code == 2 and "vault folder not found" in out and "config.toml" in out, out
