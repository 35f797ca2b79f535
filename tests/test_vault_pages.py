"""How pages are read: frontmatter edge cases, files that are skipped, and what a vault walk includes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from krouter import Router
from krouter.vault.page import parse_page
from tests.vault_files import write

FILLER = {
    "Notes/Gardening.md": "# Gardening\n\nTomatoes need sun and water every morning.\n",
    "Notes/Cooking.md": "# Cooking\n\nBake bread at high heat with steam for a crisp crust.\n",
    "Notes/Cycling.md": "# Cycling\n\nPump the tyres before a long ride on gravel roads.\n",
}


def make_vault(root: Path, pages: dict[str, str | bytes], filler: bool = True) -> Path:
    """Write pages (text or raw bytes) under root, with a few unrelated pages so IDF means something."""
    for rel, content in {**(FILLER if filler else {}), **pages}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def cited_path(vault: Path, question: str) -> str | None:
    receipt = Router(vault).ask(question)
    return receipt.top.path if receipt.decision == "cite" and receipt.top else None


# --- frontmatter fields -----------------------------------------------------------------------------


def test_dates_become_iso_strings() -> None:
    page = parse_page(
        "a.md", "---\ndate: 2024-05-01\nwhen: 2024-05-01 10:20:30\nlog: [2023-01-02]\n---\nbody\n"
    )
    assert page.meta["date"] == "2024-05-01"
    assert page.meta["when"] == "2024-05-01T10:20:30"
    assert page.meta["log"] == ["2023-01-02"]


def test_impossible_date_is_text_not_fatal(tmp_path: Path) -> None:
    # Read as written, as Obsidian shows it (D224): it was the whole frontmatter's error.
    vault = make_vault(
        tmp_path,
        {"Ops/Pager.md": "---\ndate: 2024-13-45\ntitle: Pager\n---\nThe pager rotation is weekly.\n"},
    )
    page = parse_page("Ops/Pager.md", (vault / "Ops/Pager.md").read_text())
    assert page.yaml_error is None and page.title == "Pager" and page.meta["date"] == "2024-13-45"
    with Router(vault) as router:
        assert router.ask("pager rotation").top.path == "Ops/Pager.md"
        assert router.status()["problems"] == []


@pytest.mark.parametrize("word", ["yes", "no", "on", "off"])
def test_yes_no_values_stay_words(word: str) -> None:
    page = parse_page("a.md", f"---\ntitle: {word}\naliases: [{word}]\nstatus: {word}\n---\nbody\n")
    assert page.title == word
    assert page.aliases == [word]
    assert page.status == word
    assert not page.replaced


def test_true_false_are_still_booleans() -> None:
    page = parse_page("a.md", "---\ndraft: true\npublished: false\n---\n")
    assert page.meta == {"draft": True, "published": False}


def test_byte_order_mark_does_not_hide_frontmatter(tmp_path: Path) -> None:
    text = "---\ntitle: Kafka retention\nstatus: current\n---\nWe keep topics for seven days.\n"
    vault = make_vault(tmp_path, {"Ops/Retention.md": b"\xef\xbb\xbf" + text.encode()})
    with Router(vault) as router:
        receipt = router.ask("kafka retention")
        assert receipt.top.title == "Kafka retention"
        assert router.status()["problems"] == []


def test_rule_inside_body_is_not_frontmatter() -> None:
    page = parse_page("a.md", "---\ntitle: T\n---\nfirst part\n\n---\n\nsecond: part\n---\nthird\n")
    assert page.meta == {"title": "T"}
    assert "second: part" in page.body and "third" in page.body
    no_fm = parse_page("b.md", "# Heading\n\ntext\n---\nkey: value\n---\n")
    assert no_fm.meta == {} and no_fm.yaml_error is None
    assert "key: value" in no_fm.body


def test_broken_yaml_reported_by_path_and_page_searchable(tmp_path: Path) -> None:
    text = "---\ntitle: Zeppelin hangar: north\ntags: [a\n---\nThe zeppelin hangar door code is 4411.\n"
    vault = make_vault(tmp_path, {"Sites/Hangar.md": text})
    expected = parse_page("Sites/Hangar.md", text).yaml_error
    assert expected and "mapping values are not allowed" in expected
    with Router(vault) as router:
        receipt = router.ask("zeppelin hangar door code")
        assert receipt.decision == "cite" and receipt.top.path == "Sites/Hangar.md"
        problems = router.status()["problems"]
    assert problems == [{"path": "Sites/Hangar.md", "kind": "yaml", "message": expected}]


def test_words_in_broken_frontmatter_still_find_the_page(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"a.md": "---\ntitle: Quokka census: 2024\n---\nCounted on the island.\n"})
    assert cited_path(vault, "quokka census") == "a.md"


def test_empty_file_and_no_frontmatter(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"Empty.md": "", "Plain note.md": "Marmalade recipe: oranges and sugar.\n"})
    with Router(vault) as router:
        assert router.ask("marmalade recipe").top.path == "Plain note.md"
        assert router.status()["pages"] == len(FILLER) + 2
        assert router.status()["problems"] == []
    empty = parse_page("Empty.md", "")
    assert (empty.title, empty.body, empty.meta, empty.yaml_error) == ("Empty", "", {}, None)


@pytest.mark.parametrize("frontmatter", ["- a\n- b\n", "just a sentence\n", "42\n"])
def test_frontmatter_that_is_not_a_mapping_is_reported(tmp_path: Path, frontmatter: str) -> None:
    vault = make_vault(tmp_path, {"Odd.md": f"---\n{frontmatter}---\nThe walrus enclosure is closed.\n"})
    with Router(vault) as router:
        assert router.ask("walrus enclosure").top.path == "Odd.md"
        (problem,) = router.status()["problems"]
    assert problem["path"] == "Odd.md" and "not a mapping" in problem["message"]


def test_title_fallbacks() -> None:
    assert parse_page("x/From field.md", "---\ntitle: Given\n---\n# Heading\n").title == "Given"
    assert (
        parse_page("x/From heading.md", "---\nother: 1\n---\n\n## The Heading ##\nbody\n").title
        == "The Heading"
    )
    assert parse_page("x/From name.md", "no heading here\n").title == "From name"
    assert parse_page("x/Empty title.md", "---\ntitle:\n---\n# H1\n").title == "H1"


def test_title_is_cited_in_receipt(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path, {"Ops/file-name.md": "Intro line.\n\n# Ferret feeding schedule\n\nTwice daily.\n"}
    )
    receipt = Router(vault).ask("ferret feeding schedule")
    assert (receipt.top.path, receipt.top.title) == ("Ops/file-name.md", "Ferret feeding schedule")


@pytest.mark.parametrize(
    ("value", "expected"),
    [("single phrase", ["single phrase"]), ("[one, two]", ["one", "two"]), ("", []), ("[]", [])],
)
def test_aliases_tags_triggers_string_or_list(value: str, expected: list[str]) -> None:
    page = parse_page("a.md", f"---\naliases: {value}\ntags: {value}\ntriggers: {value}\n---\n")
    assert page.aliases == expected
    assert page.tags == expected
    assert page.triggers == expected


def test_string_alias_and_trigger_recall_the_page(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Ops/Broker.md": "---\naliases: nightingale cluster\ntriggers: where do events flow\n---\nKafka.\n",
        },
    )
    assert cited_path(vault, "nightingale cluster") == "Ops/Broker.md"
    assert cited_path(vault, "where do events flow") == "Ops/Broker.md"


# --- files that are skipped -------------------------------------------------------------------------


def test_non_utf8_file_reported_and_skipped(tmp_path: Path) -> None:
    vault = make_vault(
        tmp_path,
        {
            "Latin1.md": "Le café du matin est servi à huit heures.\n".encode("latin-1"),
            "Good.md": "The morning coffee is served at eight.\n",
        },
    )
    with Router(vault) as router:
        stats = router.refresh()
        receipt = router.ask("café matin heures")
        assert all(c.path != "Latin1.md" for c in receipt.cited)
        status = router.status()
    assert (stats.added, stats.updated) == (len(FILLER) + 1, 0)  # the skipped file is not a page
    assert status["pages"] == len(FILLER) + 1
    (problem,) = status["problems"]
    assert problem["path"] == "Latin1.md" and problem["kind"] == "encoding"
    assert "UTF-8" in problem["message"]


@pytest.mark.parametrize("folder", [".obsidian", ".trash", ".git", "Notes/.hidden"])
def test_dot_folders_skipped(tmp_path: Path, folder: str) -> None:
    vault = make_vault(tmp_path, {f"{folder}/Secret.md": "The platypus vault combination is 9911.\n"})
    with Router(vault) as router:
        receipt = router.ask("platypus vault combination")
        assert receipt.decision == "refuse" and receipt.cited == []
        assert router.status()["pages"] == len(FILLER)


def test_symlinks_not_followed(tmp_path: Path) -> None:
    outside = make_vault(tmp_path / "outside", {"Loot.md": "The armadillo treasure map.\n"}, filler=False)
    vault = make_vault(tmp_path / "vault", {})
    os.symlink(outside, vault / "Linked folder")
    os.symlink(outside / "Loot.md", vault / "Linked page.md")
    os.symlink(vault, vault / "Notes" / "Loop")
    with Router(vault) as router:
        receipt = router.ask("armadillo treasure map")
        assert receipt.decision == "refuse" and receipt.cited == []
        assert router.status()["pages"] == len(FILLER)


def test_broken_yaml_problem_survives_an_edit(tmp_path: Path) -> None:
    vault = make_vault(tmp_path, {"p.md": "---\ntitle: ok\n---\nbody\n"}, filler=False)
    with Router(vault) as router:
        router.refresh()
        (vault / "p.md").write_text("---\ntitle: a: b\n---\nbody two\n", encoding="utf-8")
        os.utime(vault / "p.md", ns=(1, 1))
        router.refresh()
        problems = router.status()["problems"]
    assert [(p["path"], p["kind"]) for p in problems] == [("p.md", "yaml")]


def test_broken_yaml_title_is_salvaged() -> None:
    page = parse_page("Deploy old.md", "---\ntitle: Deploy: Heroku\nstatus: superseded\n---\nbody\n")
    assert page.yaml_error
    assert page.title == "Deploy: Heroku"
    assert page.replaced


def test_broken_yaml_salvage_reads_top_level_fields_only() -> None:
    indented = parse_page("a.md", "---\n  title: a: b\n  status: superseded\n  superseded_by: New\n---\nx\n")
    assert indented.replaced and indented.superseded_by == ["New"]  # the whole block indented alike
    nested = "---\ntitle: a: b\nnotes: |\n  status: superseded\n  replaces: [[Budget]]\nreview:\n  status: superseded\n---\nx\n"
    page = parse_page("b.md", nested)
    assert not page.replaced and page.supersedes == []  # text in a block or a nested map is not a field


def test_unquoted_wikilinks_in_lists_are_links() -> None:
    for fm in (
        "supersedes:\n  - [[Old]]\n  - [[Older]]",
        "supersedes: [[[Old]], [[Older]]]",
        "supersedes: [[Old], [Older]]",
    ):
        assert parse_page("n.md", f"---\n{fm}\n---\nx\n").supersedes == ["[[Old]]", "[[Older]]"]


def test_a_replaced_page_whose_frontmatter_is_never_closed_is_not_cited(tmp_path: Path) -> None:
    """A forgotten closing '---' dropped `status: superseded`: the walkthrough-style vault cited MySQL."""
    old = (
        '---\ntitle: Database - MySQL\nstatus: superseded\nsuperseded_by: "[[Primary database]]"\n\n'
        "# Database - MySQL\n\nWe use MySQL 5.7 as the primary database.\n"
    )
    new = "---\ntitle: Primary database\n---\n# Primary database\n\nWe moved the primary database to PostgreSQL 16.\n"
    vault = make_vault(tmp_path, {"Decisions/Database - MySQL.md": old, "Decisions/Primary database.md": new})
    page = parse_page("Decisions/Database - MySQL.md", old)
    assert page.replaced and page.yaml_error == "the opening '---' on line 1 is never closed"
    assert "We use MySQL 5.7" in page.body
    with Router(vault) as router:
        receipt = router.ask("do we use MySQL 5.7 as the primary database")
        problems = router.status()["problems"]
    assert receipt.top is not None and receipt.top.path == "Decisions/Primary database.md"
    assert [r.from_path for r in receipt.redirects] == ["Decisions/Database - MySQL.md"]
    assert {"path": "Decisions/Database - MySQL.md", "kind": "yaml", "message": page.yaml_error} in problems


@pytest.mark.parametrize(
    ("head", "line", "why"),
    [
        ("\n---", 2, "a line above it"),
        ("<!-- exported from Notion -->\n---", 2, "a line above it"),
        (" ---", 1, "a space before its '---'"),
        ("--- # properties", 1, "a comment after its '---'"),
    ],
)
def test_frontmatter_that_does_not_open_the_page_still_retires_it(
    tmp_path: Path, head: str, line: int, why: str
) -> None:
    """A bug hunt: frontmatter a blank line, a comment or a space kept from being frontmatter to YAML
    readers left `status: superseded` unread, and the old travel policy was cited at full confidence."""
    old = f"{head}\ntitle: Old travel\nstatus: superseded\nsuperseded_by: new\n---\nBookings went through Concur.\n"
    vault = make_vault(tmp_path, {"old.md": old, "new.md": "# Travel\n\nBookings go through Navan.\n"})
    page = parse_page("old.md", old)
    assert page.replaced and page.superseded_by == ["new"] and page.title == "Old travel"
    assert page.yaml_error == (
        f"the frontmatter on line {line} does not open the page ({why}), so Obsidian and YAML readers do "
        "not read it: start the page with its '---'"
    )
    with Router(vault) as router:
        receipt = router.ask("did bookings go through Concur")
        problems = router.status()["problems"]
    assert receipt.top is not None and receipt.top.path == "new.md"
    assert {"path": "old.md", "kind": "yaml", "message": page.yaml_error} in problems


def test_a_block_of_prose_between_rules_near_the_top_is_no_frontmatter() -> None:
    """A cold review: a section between two rules ("---", "## Old build server", "Status: retired in
    March; …", "---") was read as frontmatter and retired its page. Only a block of field-like lines
    whose status is a status, not a sentence, is frontmatter that did not open the page."""
    for text in (
        "\n---\nJust prose between rules.\n---\n",
        "<!-- x -->\n---\nStatus of the garden: fine\n---\n",
        "\n---\n## Old build server (jenkins-01)\nStatus: retired in March; its jobs moved to GitHub Actions.\n"
        "---\n## CI today\nCI runs on GitHub Actions.\n",
        "\n---\nStatus: retired the old courier contract, see below.\n---\nbody\n",
        "\n---\ntitle: Old travel\n\nstatus: superseded\n---\nA blank line inside is no frontmatter.\n",
    ):
        page = parse_page("a.md", text)
        assert page.yaml_error is None and not page.replaced, text


def test_a_dataview_status_under_the_title_retires_the_page(tmp_path: Path) -> None:
    """A bug hunt: Dataview reads `status:: superseded` on any line; under an H1 it was not read."""
    old = "# Old travel\n\nstatus:: superseded\nsuperseded_by:: [[new]]\n\nBookings went through Concur.\n"
    vault = make_vault(tmp_path, {"old.md": old, "new.md": "# Travel\n\nBookings go through Navan.\n"})
    assert parse_page("old.md", old).superseded_by == ["[[new]]"]
    with Router(vault) as router:
        receipt = router.ask("did bookings go through Concur")
    assert receipt.top is not None and receipt.top.path == "new.md"
    # A Logseq block's property (indented, or a list item) is about the block, not the page; a code block
    # shows an example.
    for text in (
        "- Vendor quote for printers\n  status:: rejected\n- The VPN expires in June\n",
        "- Standup notes\n- status:: superseded\n",
        "# How to mark a page\n\n```\nstatus:: superseded\n```\n",
    ):
        assert not parse_page("j.md", text).replaced, text


def test_a_decision_log_s_section_statuses_do_not_retire_the_page(tmp_path: Path) -> None:
    """A cold review: one `status:: superseded` in a section hid a decision log whose frontmatter said
    accepted (and whose current section said accepted too), and the cache page was cited at 100% for the
    primary database. Below the top, Dataview statuses count only for a page stating none elsewhere, and
    only when they agree that it is replaced."""
    log = (
        "---\nstatus: accepted\n---\n# Database decisions\n\n## 2022: MySQL\n\nstatus:: superseded\n\n"
        "We ran MySQL 5.7.\n\n## 2024: Postgres 16 for the primary database\n\nstatus:: accepted\n\n"
        "The primary database is Postgres 16, with nightly backups to S3.\n"
    )
    vault = make_vault(
        tmp_path,
        {
            "database-decisions.md": log,
            "cache.md": "# Cache\n\nRedis sits in front of the primary database.\n",
        },
    )
    assert not parse_page("database-decisions.md", log).replaced
    unstated = log.replace("---\nstatus: accepted\n---\n", "")
    assert not parse_page("d.md", unstated).replaced
    with Router(vault) as router:
        receipt = router.ask("where are the primary database backups?")
    assert receipt.top is not None and receipt.top.path == "database-decisions.md"


def test_common_misspellings_of_superseded_retire_a_page() -> None:
    for status in ("superseeded", "Supersceded"):
        page = parse_page("a.md", f"---\nstatus: {status}\nsuperseded_by: b\n---\nx\n")
        assert page.replaced, status


def test_a_page_opening_with_a_rule_and_prose_is_read_as_text() -> None:
    for text in ("---\n\nJust a rule, then text about tomatoes.\n", "---\nTomatoes need sun.\n", "---\n"):
        page = parse_page("a.md", text)
        assert not page.replaced and page.yaml_error is None and page.body == text


def test_a_page_with_broken_frontmatter_is_not_cited_at_its_fence(tmp_path: Path) -> None:
    """Broken frontmatter is read as plain text, and its opening "---" was a passage of its own: a page
    found by its title showed "line 1: ---" as the line that answers."""
    vault = make_vault(
        tmp_path,
        {
            "Runbooks/Payment worker.md": "---\ntitle: Restart the payment worker\ntags: [runbook\n---\n"
            "Restart the payment worker with `kubectl rollout restart deploy/payworker`.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("restart payment worker")
    assert receipt.top is not None and receipt.top.path == "Runbooks/Payment worker.md"
    assert receipt.top.snippet != "---" and receipt.top.line != 1, (receipt.top.line, receipt.top.snippet)


def test_frontmatter_closed_by_yaml_end_marker_is_reported_and_its_status_still_read() -> None:
    """A cold review: a block closed by '...' (Pandoc's end marker) was neither read nor reported, so
    ``krouter check`` said clean while the page's fields were body text."""
    page = parse_page("a.md", "---\ntitle: Old rule\nstatus: superseded\n...\n# Old rule\n\nOne approval.\n")
    assert page.yaml_error is not None and "closed by '...' on line 4, not by '---'" in page.yaml_error
    assert page.replaced and page.title == "Old rule"
    assert parse_page("b.md", "---\n\nA rule, then text.\n\n...\n").yaml_error is None


@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e"])
def test_a_receipt_counts_lines_as_editors_do(tmp_path: Path, separator: str) -> None:
    """A cold review: str.splitlines broke lines at U+2028 (pasted from Slack), NEL and form feeds,
    so a receipt named line 7 of a 6-line file."""

    (tmp_path / "Runbook.md").write_text(
        f"---\ntitle: Restart{separator} runbook\n---\nCopied: restart the worker{separator}then check the queue."
        "\n\nTo rotate keys run vault-rotate on the bastion host.\n",
        encoding="utf-8",
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        receipt = router.ask("rotate keys bastion")
    assert receipt.top is not None and receipt.top.path == "Runbook.md"
    assert receipt.top.line == 6
    assert receipt.top.snippet == "To rotate keys run vault-rotate on the bastion host."


def test_other_frontmatter_fields_are_words_of_the_page(tmp_path: Path) -> None:
    """A cold review: "who is Gwendolyn" got "the vault never mentions 'gwendolyn'" beside a page whose
    owner field names her."""
    (tmp_path / "Build server.md").write_text(
        "---\ntitle: Build server\nowner: Gwendolyn Harper\nhostname: ci-runner-07\nport: 8443\n"
        "date: 2024-05-06\npublish: true\nid: zq81x\nlinks: {wiki: orchid}\n---\n"
        "The build server runs Ubuntu 22.04 and builds every commit.\n",
        encoding="utf-8",
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    page = parse_page("Build server.md", (tmp_path / "Build server.md").read_text(encoding="utf-8"))
    assert page.properties == [
        (3, "owner: Gwendolyn Harper"),
        (4, "hostname: ci-runner-07"),
        (5, "port: 8443"),
        (9, "links: wiki orchid"),
    ]
    with Router(tmp_path) as router:
        who = router.ask("who is Gwendolyn")
        port = router.ask("which port does the build server listen on, 8443?")
        nothing = router.ask("zq81x")
    assert who.decision == "cite" and who.top is not None and who.top.path == "Build server.md"
    assert (who.top.line, who.top.snippet) == (3, "owner: Gwendolyn Harper")
    assert port.decision == "cite" and port.top is not None and port.top.path == "Build server.md"
    # An id is about the file, not what it says.
    assert nothing.decision == "refuse" and nothing.evidence.corpus_missing == ["zq81x"]


def test_a_nested_map_and_a_date_that_is_no_note_date_are_words_of_the_page(tmp_path: Path) -> None:
    """A cold review: "who is the contact at Northwind Traders" was told the vault never mentions
    'contact', 'northwind', 'traders' (a nested map), and "when is the Figma renewal date" that Figma's
    page lacks 'renewal' (a date field)."""
    (tmp_path / "Acme.md").write_text(
        "---\ntitle: Acme portal\nclient: {name: Northwind Traders, contact: Maria Anders}\n"
        "deadline: 2024-09-30\ncreated: 2024-01-02\n---\nThe portal project for the client.\n",
        encoding="utf-8",
    )
    (tmp_path / "Figma.md").write_text(
        "---\ntitle: Figma\nrenewal_date: 2025-03-01\nseats: 12\n---\nDesign tool licences.\n",
        encoding="utf-8",
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    # The note's own date written as text has always been a line of the page (LoCoMo's sessions).
    quoted = parse_page("S.md", '---\ndate: "2022-12-17"\ncreated: 2024-01-02\n---\nHi.\n')
    assert quoted.properties == [(2, "date: 2022-12-17")]
    page = parse_page("Acme.md", (tmp_path / "Acme.md").read_text(encoding="utf-8"))
    assert page.properties == [
        (3, "client: name Northwind Traders, contact Maria Anders"),
        (4, "deadline: 2024-09-30"),
    ]
    with Router(tmp_path) as router:
        contact = router.ask("who is the contact at Northwind Traders")
        renewal = router.ask("when is the Figma renewal date")
        deadline = router.ask("when is the Acme portal deadline")
    assert contact.decision == "cite" and contact.top is not None and contact.top.path == "Acme.md"
    assert contact.top.missing == [] and contact.top.line == 3
    assert renewal.decision == "cite" and renewal.top is not None and renewal.top.path == "Figma.md"
    assert renewal.top.missing == [] and "2025-03-01" in renewal.top.snippet
    assert deadline.top is not None and deadline.top.path == "Acme.md" and deadline.top.missing == []


def test_a_long_line_is_shown_where_it_holds_the_question(tmp_path: Path) -> None:
    """A cold review: a paragraph kept on one line (as notes often are) was shown by its first 240
    characters, which did not hold the answer."""
    filler = "Our onboarding process covers many things that new hires need during their first weeks, " * 4
    zh_filler = "值班安排每周轮换一次，大家按照排班表执行，有问题请提前沟通。" * 8
    (tmp_path / "Onboarding.md").write_text(
        f"# Onboarding\n\n{filler}The onboarding buddy for every new engineer is assigned by Priya.\n",
        encoding="utf-8",
    )
    (tmp_path / "值班.md").write_text(f"# 值班\n\n{zh_filler}夜间值班补贴是每晚三百元。\n", encoding="utf-8")
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        buddy = router.ask("who assigns the onboarding buddy")
        pay = router.ask("夜间值班补贴是多少")
    assert buddy.top is not None and "assigned by Priya." in buddy.top.snippet
    assert buddy.top.snippet.startswith("…") and len(buddy.top.snippet) <= 240
    assert pay.top is not None and "每晚三百元" in pay.top.snippet


def test_a_number_in_frontmatter_is_a_word_as_written() -> None:
    """The diff's cold review: "python: 3.10" was indexed as YAML's float, 3.1, so a question about 3.10
    was refused and one about 3.1 cited the page."""
    page = parse_page("API.md", "---\npython: 3.10 # pinned\nversions: [3.10, 3.11]\n---\nBody.\n")
    assert page.properties == [(2, "python: 3.10"), (3, "versions: 3.10, 3.11")]
    # The late commits' review: a list going on below, a key written twice, an anchor and its alias.
    odd = parse_page("B.md", "---\nv: [3.10,\n  3.11]\npy: 3.9\npy: 3.12\nbase: &x 2.5\nci: *x\n---\nBody.\n")
    assert odd.properties == [(2, "v: 3.1, 3.11"), (5, "py: 3.12"), (6, "base: 2.5"), (7, "ci: 2.5")]


def test_a_field_named_in_chinese_is_a_line_of_the_page_at_its_own_line() -> None:
    page = parse_page("部署.md", "---\ntitle: 部署\n负责人: 张三\n---\nBody.\n")
    assert page.properties == [(3, "负责人: 张三")]


def test_a_snippet_window_holds_every_matched_word_it_can_whole() -> None:
    """The late commits' review: hits before a window's anchor were dropped from its count, one term's
    many matches crowded out the others', and a word at a window's very end was cut off."""
    from types import SimpleNamespace

    from krouter.routing.citation import _around_matches

    def unit(term: str) -> SimpleNamespace:
        return SimpleNamespace(alts=((term,),), weight=1.0)

    spread = "x" * 100 + "alpha" + "y" * 25 + "bravo" + "z" * 175 + "charlie" + "w" * 283
    shown = _around_matches(spread, [unit("alpha"), unit("bravo"), unit("charlie")])
    assert all(word in shown for word in ("alpha", "bravo", "charlie")), shown
    crowded = "retry " * 2600 + "the deploy timeout is 90 seconds. " + "retry " * 2600
    assert "deploy timeout" in _around_matches(crowded, [unit("retry"), unit("timeout")])


@pytest.mark.parametrize("rule", ["|---|---|---|---|", "|-|-|-|-|"])
def test_a_table_row_is_the_answering_line_not_its_header(tmp_path: Path, rule: str) -> None:
    """A cold review: "what is the ops cost of RabbitMQ" showed the header row (it holds "ops cost"),
    not RabbitMQ's row, as the line that answers. So it did under a rule of one dash a column, which
    Markdown editors take for a table's too: the receipt read only rules of three dashes."""
    (tmp_path / "Queues.md").write_text(
        "# Message queue options\n\nWe compared three brokers in March.\n\n"
        f"| Option | Throughput | Ops cost | Verdict |\n{rule}\n"
        "| Kafka | 1M msg/s | high | rejected |\n| RabbitMQ | 50k msg/s | medium | backup |\n\n"
        "| not a table row after a blank line |\n",
        encoding="utf-8",
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        cost = router.ask("what is the ops cost of RabbitMQ")
        speed = router.ask("what throughput does Kafka have")
    assert cost.top is not None and (cost.top.line, cost.top.snippet) == (
        8,
        "| RabbitMQ | 50k msg/s | medium | backup |",
    )
    assert speed.top is not None and speed.top.line == 7


def test_the_row_a_question_names_by_its_key_answers_though_an_alias_names_it_too(tmp_path: Path) -> None:
    """The dev5 agent loop: "P1 告警要几分钟内 ack" showed the P0 row ("5 分钟 ack … 30 分钟内拉应急群"),
    an agent trusting it answers 5 minutes: the page's alias names P0 and P1, so P1 counted in every
    row, and the P0 row holds 内 too. A row whose first cell is only a key the question names (P1) and
    that states more of the question answers; a key cell saying more than the question's word
    ("整个登录流程" for 登录) names no row."""
    (tmp_path / "告警分级.md").write_text(
        "---\ntitle: 告警分级\naliases: [告警级别, P0 P1 定义]\n---\n# 告警分级\n\n"
        "| 级别 | 定义 | 响应时间 |\n|---|---|---|\n"
        "| **P0** | 核心功能不可用 | **5 分钟** ack，30 分钟内拉应急群 |\n"
        "| **P1** | 核心功能严重降级 | **15 分钟** ack |\n",
        encoding="utf-8",
    )
    (tmp_path / "登录SDK超时.md").write_text(
        "# 登录SDK超时\n\n| 环节 | 超时 | 重试 |\n|---|---|---|\n"
        "| Account SDK `SignIn()` | **10 秒** | 1 次 |\n| 整个登录流程 | 30 秒 | — |\n",
        encoding="utf-8",
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        p1 = router.ask("P1 告警要几分钟内 ack 来着？")
        p0 = router.ask("P0 告警要几分钟内 ack？")
        sdk = router.ask("登录那块 SDK 超时是几秒来着?")
    assert p1.top is not None and p1.top.line == 10, p1.top
    assert p0.top is not None and p0.top.line == 9, p0.top
    assert sdk.top is not None and sdk.top.line == 5, sdk.top


def test_the_line_shown_is_a_sentence_of_the_section_the_question_asks_about(tmp_path: Path) -> None:
    """Agent-loop runs pointed at lines that do not answer: a heading's sentence lost to a later line
    because its passage starts with the heading ("## Decision" over the decision), a section's heading
    was shown instead of the items under it, and a line naming the replaced page in a link ("Replaces
    [[Decisions/Publisher check-in (monthly)]]") or a sentence's last line holding only a link stood for
    a line stating the fact."""
    (tmp_path / "Decisions").mkdir()
    (tmp_path / "Decisions/Error tracking.md").write_text(
        "# Error tracking\n\n## Decision\nMove all error tracking from Bugsnag to **Sentry**.\n\n"
        "## Why\n- Bugsnag raised its price about 40% at renewal\n",
        encoding="utf-8",
    )
    (tmp_path / "Decisions/Deploys.md").write_text(
        "# Deploys\n\nWe deploy from the main branch.\n\n## Release window\n- Tuesdays and Thursdays, 14:00-17:00\n"
        "- Hotfixes any time\n",
        encoding="utf-8",
    )
    (tmp_path / "Decisions/Publisher check-in.md").write_text(
        "# Publisher check-in\n\nReplaces [[Decisions/Publisher check-in (monthly)]].\n\n"
        "- The check-in with the publisher is now every second Tuesday at 16:00.\n",
        encoding="utf-8",
    )
    (tmp_path / "Decisions/Payments.md").write_text(
        "# Payments\n\nSince 2024 our cards are charged through **Stripe**, which replaced Braintree\n"
        "([[Decisions/Card processor]]).\n",
        encoding="utf-8",
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        bugsnag = router.ask("are we still on Bugsnag for error tracking?")
        window = router.ask("what is the release window?")
        publisher = router.ask("is the publisher check-in still monthly?")
        processor = router.ask("who is our card processor?")
    assert bugsnag.top is not None and bugsnag.top.line == 4, bugsnag.top
    assert window.top is not None and window.top.line == 6, window.top
    assert publisher.top is not None and publisher.top.line == 5, publisher.top
    assert processor.top is not None and processor.top.line == 3, processor.top


def test_under_a_heading_the_line_shown_holds_words_of_its_own(tmp_path: Path) -> None:
    """A cold review of D138: with a heading's words counted in every line under it, the first line won
    whatever it was ("Updated 2024-03 by Bob.", a fence, a comment, an embed); a "-y" word (policy, stem
    "polici") was not found beside a link; and a section's words ran on past a later first-level heading."""
    (tmp_path / "Refunds.md").write_text(
        "# Shop rules\n\n## Refund policy\nUpdated 2024-03 by Bob.\nRefunds are accepted within 30 days.\n",
        encoding="utf-8",
    )
    (tmp_path / "Network.md").write_text(
        "# Office\n\n## Office network\n<!-- TODO -->\n![[office-net.png]]\nThe office network is 10.2.0.0/16.\n",
        encoding="utf-8",
    )
    (tmp_path / "Delivery.md").write_text(
        "# Shipping\n\n- Delivery policy: we ship within 2 days by DHL, see [[Decisions/Courier choice]].\n"
        "- Delivery policy reviews are owned by Ana.\n",
        encoding="utf-8",
    )
    (tmp_path / "Standup.md").write_text(
        "# Standup\n\n## Vendor payments\n- Globex invoice paid on Monday.\n\n# Retro\n\n- Parking passes renewed.\n",
        encoding="utf-8",
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        refund = router.ask("what is the refund policy?")
        network = router.ask("office network?")
        delivery = router.ask("what is our delivery policy?")
        vendor = router.ask("were the vendor payments renewed?")
    # Cited or refused, the page's line is what a reader is sent to.
    assert [(r.candidates[0].path, r.candidates[0].line) for r in (refund, network, delivery, vendor)] == [
        ("Refunds.md", 5),
        ("Network.md", 6),
        ("Delivery.md", 3),
        ("Standup.md", 4),
    ]


def test_a_long_lines_snippet_finds_a_number_the_line_writes_grouped(tmp_path: Path) -> None:
    """A cold review of D140: a question's 1000 is found on a page writing "1,000", but the snippet of a
    long line searched the line for "1000" alone and showed its start, without the number."""
    filler = "Our warehouse partner handles storage, picking, packing and returns for every market. " * 5
    (tmp_path / "Pricing.md").write_text(
        f"# Pricing\n\n{filler}The discount starts at 1,000 a year.\n", encoding="utf-8"
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        receipt = router.ask("1000 pallets")
    shown = receipt.candidates[0]
    assert shown.path == "Pricing.md" and "1,000 a year" in shown.snippet, shown.snippet


def test_a_heading_gives_way_to_the_sentence_under_it_and_a_tag_line_is_no_heading(tmp_path: Path) -> None:
    """A second review of D138: a heading holding the question's words beat the sentence under it that
    shares none ("## Release window" over the days), a "#oncall #pay" tag line and a "# comment" inside a
    code fence ended a section as a first-level heading does."""
    (tmp_path / "Releases.md").write_text(
        "# Releases\n\nWe ship from main.\n\n## Release window\nTuesdays and Thursdays, 14:00-17:00.\n",
        encoding="utf-8",
    )
    (tmp_path / "Stipend.md").write_text(
        "# Pay\n\n## On-call stipend\n#oncall #pay\n\n- The stipend is 300 EUR per week.\n", encoding="utf-8"
    )
    (tmp_path / "Restart.md").write_text(
        "# Workers\n\n## Restarting a worker\n```\n# stop it first\nsystemctl restart worker\n```\n\n"
        "- Afterwards check the dashboard for the queue depth.\n",
        encoding="utf-8",
    )
    (tmp_path / "Lunch.md").write_text("# Lunch\n\nPizza on Fridays.\n", encoding="utf-8")
    with Router(tmp_path) as router:
        window = router.ask("what is the release window?")
        stipend = router.ask("what is the on-call stipend?")
        restart = router.ask("what do I check after restarting a worker?")
    assert [(r.candidates[0].path, r.candidates[0].line) for r in (window, stipend, restart)] == [
        ("Releases.md", 6),
        ("Stipend.md", 6),
        ("Restart.md", 9),
    ]


def test_a_page_gone_from_the_vault_before_the_index_knows_is_never_cited(tmp_path: Path) -> None:
    """A bug hunt: with a watcher's lease saying the index was fresh, a page just moved out of the vault
    was cited with an empty line, or the lookup failed (IndexError) on its stored passages. A page the
    index holds and the vault does not makes the lookup walk the vault and ask again."""
    vault = make_vault(
        tmp_path / "vault",
        {
            "Runbooks/Payments API timeout.md": "# Payments API timeout\n\nStripe calls time out after 10 s.\n",
            "README.md": "# How this vault works\n\n## Ask\n\n- how do we ship a release\n",
        },
    )
    (tmp_path / "archive").mkdir()
    with Router(vault, auto_refresh=False) as router:
        router.refresh()
        assert router.decide("payments API timeout").top.path == "Runbooks/Payments API timeout.md"
        (vault / "Runbooks" / "Payments API timeout.md").rename(tmp_path / "archive" / "p.md")
        (vault / "README.md").rename(tmp_path / "archive" / "README.md")
        for question in ("payments API timeout", "how do we ship a release"):
            receipt = router.decide(question)
            assert all((vault / c.path).exists() for c in receipt.candidates), question
            assert receipt.decision == "refuse", question


def test_a_page_gone_while_another_process_writes_the_index_is_said_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold review: with another process holding the index's write lock, each refresh of the gone
    page waited the busy timeout and the lookup asked again four times (two minutes), then failed with a
    traceback. One wait, then an error that says what to do."""
    import sqlite3

    from krouter.errors import KRouterError
    from krouter.index import store

    monkeypatch.setattr(store, "BUSY_TIMEOUT_S", 0.2)
    vault = make_vault(
        tmp_path / "vault", {"courier.md": "# Courier\n\nSamples to the UK go by DHL Express.\n"}
    )
    with Router(vault) as router:
        router.ask("which courier ships samples to the UK")
        index_path = router.index.path
    (vault / "courier.md").unlink()
    writer = sqlite3.connect(index_path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with (
            Router(vault, auto_refresh=False) as router,
            pytest.raises(KRouterError, match="ask again in a moment"),
        ):
            router.ask("which courier ships samples to the UK")
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_date_no_calendar_has_is_text_not_the_frontmatter_s_end(tmp_path: Path) -> None:
    """A bug hunt: `created: 2024-02-30` made PyYAML fail the whole frontmatter, and the page's alias
    with it ("jenkins box" cited another page); the problem named neither the field nor its line."""
    text = (
        "---\ntitle: Build server\naliases:\n  - Jenkins box\ncreated: 2024-02-30\n---\nIt runs on kiwi-01.\n"
    )
    page = parse_page("Build server.md", text)
    assert page.yaml_error is None and page.aliases == ["Jenkins box"]
    vault = make_vault(
        tmp_path,
        {"Build server.md": text, "Other.md": "The jenkins plugin list is long; a box of cables.\n"},
    )
    with Router(vault) as router:
        receipt = router.ask("jenkins box")
    assert receipt.top is not None and receipt.top.path == "Build server.md"


def test_hugo_aliases_are_old_urls_not_names(tmp_path: Path) -> None:
    """A bug hunt on a Hugo site's content folder: `aliases: ["/blog/2019/vpn-setup/"]` (the old URLs a
    page redirects from) was read as a name of the laptop policy, and "vpn setup" cited it at 100%."""
    vault = write(
        tmp_path / "site",
        {
            "content/posts/laptop.md": '---\ntitle: Laptop policy\naliases: ["/blog/2019/vpn-setup/", "Laptops"]\n---\n'
            "Every laptop is encrypted.\n",
            "content/posts/remote.md": "---\ntitle: Remote access\n---\n"
            "The VPN setup uses WireGuard; profiles are issued by IT.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("vpn setup")
    assert receipt.candidates[0].path == "content/posts/remote.md", receipt.to_text()


def test_a_snippet_shows_a_line_without_obsidian_s_block_id_or_highlight_marks(tmp_path: Path) -> None:
    """A bug hunt on exported vaults: receipts showed "Firewall pfSense ^aB3dE9fG" and "==sunflower-42==",
    marks the note's reader never sees; code's == stays."""
    vault = write(
        tmp_path / "obs",
        {
            "Network.md": "# Network\n\nThe core switch is a Cisco C9300 ^aB3dE9fG\n\n"
            "The guest wifi password is ==sunflower-42== now.\n\nThe health check passes if status==200 or code==204.\n",
            "Other.md": "# Other\n\nThe printer is on floor two.\n",
        },
    )
    with Router(vault) as router:
        switch = router.decide("what core switch do we have").candidates[0]
        wifi = router.decide("guest wifi password").candidates[0]
        check = router.decide("when does the health check pass").candidates[0]
    assert switch.snippet == "The core switch is a Cisco C9300", switch
    assert wifi.snippet == "The guest wifi password is sunflower-42 now.", wifi
    assert check.snippet == "The health check passes if status==200 or code==204.", check
