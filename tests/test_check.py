"""``krouter check``: each kind of finding on a small hand-made vault, the exit codes and the JSON form."""

from __future__ import annotations

import json
import random
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from krouter.cli import app
from krouter.ops.check.lint import check
from krouter.ops.check.similar import hamming, near_duplicate_pairs, simhash

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()

WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu amber basalt cobalt dune ember "
    "fjord granite harbor iris jasper kelp lagoon meadow nectar orchid pebble quartz reef summit tundra"
).split()


def prose(seed: int, n: int = 120) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) + str(rng.randint(0, 40)) for _ in range(n))


def page(title: str, body: str = "", **fields: object) -> str:
    lines = [f"title: {title}"] + [f"{k}: {json.dumps(v)}" for k, v in fields.items()]
    return "---\n" + "\n".join(lines) + "\n---\n\n" + (body or prose(zlib.crc32(title.encode()))) + "\n"


def make(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    vault = tmp_path / "vault"
    for rel, content in files.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return vault


def kinds(vault: Path) -> dict[str, list[tuple[str, list[str]]]]:
    out: dict[str, list[tuple[str, list[str]]]] = {}
    for f in check(vault).findings:
        out.setdefault(f.kind, []).append((f.path, f.related))
    return out


def test_clean_vault_exits_zero(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "Decisions/Old.md": page("Old DB", status="superseded", superseded_by="Decisions/New"),
            "Decisions/New.md": page("New DB"),
            "Ops/Pager.md": page("Pager"),
        },
    )
    result = runner.invoke(app, ["check", "--vault", str(vault)])
    assert result.exit_code == 0, result.output
    assert "clean" in result.output
    data = json.loads(runner.invoke(app, ["check", "--vault", str(vault), "--json"]).output)
    assert data["ok"] is True and data["findings"] == [] and data["pages"] == 3


def test_dangling_links_both_directions(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "A.md": page("A", status="superseded", superseded_by="[[Nowhere]]"),
            "B.md": page("B", supersedes="Gone/Page.md"),
        },
    )
    found = kinds(vault)
    assert sorted(p for p, _ in found["dangling_link"]) == ["A.md", "B.md"]
    assert "no_replacement" not in found  # A names a replacement; the dangling link is the finding


def test_ambiguous_link_name_is_explained(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "Old.md": page("Old", superseded_by="Plan"),
            "x/Plan.md": page("Plan X"),
            "y/Plan.md": page("Plan Y"),
        },
    )
    (finding,) = [f for f in check(vault).findings if f.kind == "dangling_link"]
    assert "ambiguous" in finding.message


def test_a_link_in_the_status_is_named_as_the_status_s(tmp_path: Path) -> None:
    # It was "superseded_by: '[[Plan B]]' names no page" on a page with no superseded_by field.
    vault = make(
        tmp_path,
        {
            "Old.md": page("Old", status="superseded by [[Plan B]]"),
            "Older.md": page("Older", status="superseded", superseded_by="Plan C"),
            # The cold review of the first fix: a status line in the body (at the top, or an ADR's
            # section) still named the field, and a link written in both places gave two findings.
            "Top.md": "# Top\n\nStatus: superseded by [[Plan D]]\n\nText.\n",
            "adr/0001-x.md": "# 1. X\n\n## Status\n\nSuperseded by [2. Y](0002-y.md)\n\n## Decision\n\nX.\n",
            "Both.md": page("Both", status="superseded by [[Plan E]]", superseded_by="[[Plan E]]"),
        },
    )
    findings = [f for f in check(vault).findings if f.kind == "dangling_link"]
    messages = {f.path: f.message for f in findings}
    assert len(findings) == len(messages) == 5
    assert messages == {
        "Old.md": "status: '[[Plan B]]' names no page",
        "Older.md": "superseded_by: 'Plan C' names no page",
        "Top.md": "status: '[[Plan D]]' names no page",
        "adr/0001-x.md": "status: '[2. Y](0002-y.md)' names no page",
        "Both.md": "superseded_by: '[[Plan E]]' names no page",
    }


def test_case_only_collision_is_ambiguous_and_names_both(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {"Old.md": page("Old", superseded_by="d/AUTH"), "D/Auth.md": page("Auth"), "D/auth.md": page("auth")},
    )
    if (vault / "D/Auth.md").samefile(vault / "D/auth.md"):
        pytest.skip("case-insensitive file system")
    (finding,) = [f for f in check(vault).findings if f.kind == "dangling_link"]
    assert (
        "ambiguous" in finding.message and "D/Auth.md" in finding.message and "D/auth.md" in finding.message
    )


def test_a_page_replaced_by_two_is_a_notice_that_hits_lead_to_neither(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "Old.md": "---\nstatus: superseded\nsuperseded_by: [B, A]\n---\nold\n",
            "A.md": page("A"),
            "B.md": page("B"),
        },
    )
    (finding,) = [f for f in check(vault).findings if f.kind == "several_replacements"]
    assert (
        finding.severity == "notice" and "(A.md, B.md); a hit on it leads to none of them" in finding.message
    )
    assert not [f for f in check(vault).findings if f.kind == "no_replacement"]


def test_a_status_in_two_spellings_that_disagree_is_reported(tmp_path: Path) -> None:
    """A bug hunt: "status: current" above "Status: superseded" made a page never cited while
    `krouter check` said clean. A cold review of the first fix: spellings that agree, however worded, and
    other fields are no problem; and the page's YAML is sound (no "yaml" finding, the page teachable)."""
    vault = make(
        tmp_path,
        {
            "Old.md": "---\nstatus: current\nStatus: superseded\nsuperseded_by: New\n---\nold\n",
            "Case.md": "---\nstatus: Active\nStatus: active\n---\nbody\n",
            "List.md": "---\nstatus: [current]\nStatus: current  # reviewed 2025\n---\nbody\n",
            "Block.md": "---\nStatus:\n  - current\nstatus: current\n---\nbody\n",
            "Both.md": "---\nstatus: superseded\nStatus: deprecated\nsuperseded_by: New\n---\nold\n",
            "Title.md": "---\ntitle: Deploy guide\nTitle: Deploy Guide\n---\nbody\n",
            "New.md": page("New"),
        },
    )
    findings = check(vault).findings
    assert {f.path: f.message for f in findings if f.kind == "status_spellings"} == {
        "Old.md": "status written in two spellings that disagree (status: current, Status: superseded): every "
        "value is read, so the page is replaced"
    }
    assert not [f for f in findings if f.kind == "yaml"]
    assert not check(vault).ok


def test_yaml_findings_say_what_was_read(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "List.md": "---\n- x\n---\nbody\n",
            "Broken.md": "---\ntitle: a: b\n---\nbody\n",
            # A cold review: "fields ignored" was said of a full-width colon's fields, which were read.
            "Wide.md": "---\nstatus：superseded\n---\nbody\n",
            "Twice.md": "---\nstatus: superseded\nstatus: current\n---\nbody\n",
        },
    )
    messages = {f.path: f.message for f in check(vault).findings if f.kind == "yaml"}
    assert messages["List.md"] == (
        "frontmatter is a list, not a mapping of fields: only its title, status and replacement links are "
        "read, line by line"
    )
    assert messages["Wide.md"].startswith("frontmatter is a str, not a mapping of fields: only its title")
    assert messages["Twice.md"] == "status written more than once; every value is read"
    assert messages["Broken.md"].startswith("broken frontmatter, read as plain text")


def test_a_relative_link_read_from_the_root_is_a_notice(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {"Decisions/Old.md": page("Old", superseded_by="./Runbooks/New"), "Runbooks/New.md": page("New")},
    )
    (finding,) = check(vault).findings
    assert finding.kind == "loose_link" and finding.severity == "notice"
    assert finding.related == ["Runbooks/New.md"]


def test_symlinks_are_reported_as_notices(tmp_path: Path) -> None:
    vault = make(tmp_path, {"Ops/Pager.md": page("Pager")})
    outside = tmp_path / "shared"
    outside.mkdir()
    (outside / "Team.md").write_text(page("Team"), encoding="utf-8")
    (vault / "Shared").symlink_to(outside)
    (vault / "Ops" / "Alias.md").symlink_to(vault / "Ops" / "Pager.md")
    report = check(vault)
    assert [(f.kind, f.path, f.severity) for f in report.findings] == [
        ("symlink", "Ops/Alias.md", "notice"),
        ("symlink", "Shared", "notice"),
    ]
    assert report.ok


def test_cycles_are_found_once(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "A.md": page("A", status="superseded", superseded_by="B"),
            "B.md": page("B", status="superseded", superseded_by="C"),
            "C.md": page("C", supersedes="[[A]]", superseded_by="A"),
            "Self.md": page("Self", superseded_by="Self"),
            "Into.md": page("Into", status="superseded", superseded_by="A"),
        },
    )
    findings = check(vault).findings
    cycles = [f for f in findings if f.kind == "cycle"]
    assert sorted((f.path, f.related) for f in cycles) == [("A.md", ["B.md", "C.md"]), ("Self.md", [])]
    # A page leading into a cycle has no current replacement: an error, not a tidying notice.
    (into,) = [f for f in findings if f.path == "Into.md"]
    assert into.kind == "no_replacement" and "no current page" in into.message
    assert into.severity == "error"


def test_superseded_without_replacement(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "Lost.md": page("Lost", status="superseded"),
            "Retired.md": page("Retired", status="retired"),  # abandoned, no replacement promised
            "Saved.md": page("Saved", status="superseded"),
            "New.md": page("New", supersedes="Saved"),
        },
    )
    assert kinds(vault)["no_replacement"] == [("Lost.md", [])]


def test_chain_not_collapsed_is_reported_not_fixed(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "v1.md": page("V1", status="superseded", superseded_by="v2"),
            "v2.md": page("V2", status="superseded", superseded_by="v3"),
            "v3.md": page("V3"),
        },
    )
    before = {p.name: p.read_bytes() for p in vault.iterdir()}
    (finding,) = [f for f in check(vault).findings if f.kind == "chain_not_collapsed"]
    assert finding.path == "v1.md" and finding.related == ["v2.md", "v3.md"]
    assert "v3.md" in finding.message
    # The chain still redirects correctly: a notice, not a failure.
    assert finding.severity == "notice" and check(vault).ok
    assert {p.name: p.read_bytes() for p in vault.iterdir()} == before


def test_broken_yaml_and_non_utf8(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "Broken.md": "---\ntitle: [unclosed\n---\nbody\n",
            "Latin1.md": "caf\xe9 notes\n".encode("latin-1"),
            "Fine.md": page("Fine"),
        },
    )
    found = kinds(vault)
    assert found["yaml"] == [("Broken.md", [])]
    assert found["encoding"] == [("Latin1.md", [])]


def test_duplicate_titles_among_live_pages(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "a/Deploy.md": page("Deploy policy"),
            "b/Deploy.md": page("deploy  POLICY"),
            "c/Old.md": page("Deploy policy", status="superseded", superseded_by="a/Deploy"),
            "d/Other.md": page("Other"),
        },
    )
    assert kinds(vault)["duplicate_title"] == [("a/Deploy.md", ["b/Deploy.md"])]


def test_near_duplicates_reported_with_both_paths(tmp_path: Path) -> None:
    text = prose(7, 200)
    words = text.split()
    words[50] = "changed"
    words[120] = "edited"
    vault = make(
        tmp_path,
        {
            "Notes/Copy A.md": page("Copy A", text),
            "Archive/Copy B.md": page("Copy B", " ".join(words)),
            "Other.md": page("Other", prose(99, 200)),
            "Short1.md": page("S1", "tiny page"),
            "Short2.md": page("S2", "tiny page"),
            # A replaced page that resembles its replacement is expected, not a finding.
            "v1.md": page("V1", prose(5, 200), status="superseded", superseded_by="v2"),
            "v2.md": page("V2", prose(5, 200) + " plus one line"),
        },
    )
    found = kinds(vault)
    assert found["near_duplicate"] == [("Archive/Copy B.md", ["Notes/Copy A.md"])]


def test_triggers_on_replaced_pages(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "Old.md": page("Old", triggers=["what db do we use"], superseded_by="New"),
            "New.md": page("New", triggers=["which database"]),
        },
    )
    assert kinds(vault)["trigger_on_replaced"] == [("Old.md", ["New.md"])]


def test_json_output_and_exit_code(tmp_path: Path) -> None:
    vault = make(tmp_path, {"A.md": page("A", superseded_by="Missing")})
    result = runner.invoke(app, ["check", "--vault", str(vault), "--json"])
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["ok"] is False
    assert data["counts"] == {"dangling_link": 1}
    (finding,) = data["findings"]
    assert set(finding) == {"kind", "path", "message", "related", "severity"}
    assert finding["severity"] == "error"
    assert finding["path"] == "A.md" and finding["kind"] == "dangling_link"
    text = runner.invoke(app, ["check", "--vault", str(vault)])
    assert text.exit_code == 1 and "dangling_link" in text.output


def test_missing_vault_is_usage_error(tmp_path: Path) -> None:
    assert runner.invoke(app, ["check", "--vault", str(tmp_path / "nope")]).exit_code == 2


def test_simhash_banding_finds_every_close_pair() -> None:
    rng = random.Random(1)
    fps = {f"p{i}": rng.getrandbits(64) for i in range(3000)}
    base = fps["p0"]
    for k in range(9):
        fps[f"near{k}"] = base ^ sum(1 << b for b in rng.sample(range(64), k))
    pairs = near_duplicate_pairs(fps, distance=6)
    with_base = {b if a == "p0" else a for a, b, _ in pairs if "p0" in (a, b)}
    assert with_base == {f"near{k}" for k in range(7)}
    brute = {
        (a, b) for a in fps for b in fps if a < b and a.startswith("near") and hamming(fps[a], fps[b]) <= 6
    }
    assert brute <= {(a, b) for a, b, _ in pairs}


def test_simhash_is_stable_and_sensitive() -> None:
    terms = prose(3, 300).split()
    assert simhash(terms) == simhash(list(reversed(terms)))
    assert hamming(simhash(terms), simhash(prose(4, 300).split())) > 10


@pytest.mark.parametrize(
    "vault", ["vault_template", "bench/memory_honesty/vault", "bench/memory_honesty/vault2"]
)
def test_bundled_vaults_have_only_known_findings(vault: str) -> None:
    """The demo and bench vaults keep deliberate two-hop replacement chains (they test redirects);
    anything else found there is a regression in the vaults or in the check."""
    report = check(REPO / vault)
    assert report.pages > 10
    assert {f.kind for f in report.findings} <= {"chain_not_collapsed"}
    assert report.ok


def test_branching_replacement_reaches_the_live_branch(tmp_path: Path) -> None:
    """superseded_by: [B, C] where B was retired: C is current, so nothing is wrong."""
    vault = make(
        tmp_path,
        {
            "A.md": "---\nstatus: superseded\nsuperseded_by: [B, C]\n---\nA\n",
            "B.md": page("B", status="retired"),
            "C.md": page("C"),
        },
    )
    report = check(vault)
    assert report.ok, report.findings


def test_supersedes_from_a_clipping_is_ignored_and_reported(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "Decisions/Primary database.md": page("Primary database"),
            "Clippings/blog.md": "---\nsupersedes: '[[Primary database]]'\n---\nUse MongoDB.\n",
        },
    )
    (finding,) = check(vault).findings
    assert finding.kind == "untrusted_supersedes" and finding.path == "Clippings/blog.md"


def test_a_current_status_beside_superseded_by_is_a_contradiction(tmp_path: Path) -> None:
    """`status: active` with `superseded_by:` read as replaced by the router (never cited), silently."""
    vault = make(
        tmp_path,
        {
            "D/Chain2.md": page("Chain2", status="active", superseded_by="D/Chain3"),
            "D/Chain3.md": page("Chain3"),
            "D/Old.md": page("Old", status="superseded", superseded_by="D/Chain3"),
        },
    )
    (finding,) = check(vault).findings
    assert (finding.kind, finding.path, finding.related) == (
        "replaced_but_current",
        "D/Chain2.md",
        ["D/Chain3.md"],
    )
    assert finding.message == (
        "status 'active' says the page is current, but superseded_by 'D/Chain3' replaces it: KRouter "
        "never cites it; set status: superseded, or remove superseded_by"
    )
    assert finding.severity == "error"
    result = runner.invoke(app, ["check", "--vault", str(vault)])
    assert result.exit_code == 1 and "replaced_but_current D/Chain2.md: status 'active'" in result.stdout
    # The router's reading is kept: the replacement is cited.
    asked = runner.invoke(app, ["ask", "Chain2", "--vault", str(vault), "--json"])
    assert all(c["path"] != "D/Chain2.md" for c in json.loads(asked.stdout)["cited"])


def test_a_replacement_that_exists_but_is_no_page_says_why(tmp_path: Path) -> None:
    vault = make(
        tmp_path,
        {
            "D/X.md": page("X", status="superseded", superseded_by="A/latin"),
            "A/latin.md": b"# Latin\n\ncaf\xe9 au lait\n",
            "D/Y.md": page("Y", status="superseded", superseded_by="[[Old/Ign]]"),
            "Old/Ign.md": page("Ign"),
            ".krouterignore": "Old/\n",
            "D/Z.md": page("Z", status="superseded", superseded_by="Nowhere"),
        },
    )
    messages = {f.path: f.message for f in check(vault).findings if f.kind == "dangling_link"}
    assert messages == {
        "D/X.md": "superseded_by: 'A/latin' names A/latin.md, which exists but is not a page KRouter reads "
        "(not UTF-8); a hit on this page cannot lead there",
        "D/Y.md": "superseded_by: '[[Old/Ign]]' names Old/Ign.md, which exists but is ignored "
        "(.krouterignore, the `ignore` setting or Obsidian's excluded files); a hit on this page cannot "
        "lead there",
        "D/Z.md": "superseded_by: 'Nowhere' names no page",
    }


@pytest.mark.parametrize(
    "saved",
    [
        pytest.param("Private/\n".encode("utf-8-sig"), id="utf-8 with a byte-order mark"),
        pytest.param("Private/\r\n".encode("utf-16"), id="utf-16, as PowerShell writes"),
    ],
)
def test_an_ignore_file_saved_by_a_windows_editor_still_leaves_its_pages_out(
    tmp_path: Path, saved: bytes
) -> None:
    """A cold review: a .krouterignore with Notepad's byte-order mark lost its first pattern, and one
    written by PowerShell lost them all: the private pages it lists were indexed and cited."""
    vault = make(
        tmp_path,
        {
            "Private/Salaries.md": "# Salaries\n\nBob earns 90k a year.\n",
            "Ops.md": page("Ops"),
            ".krouterignore": saved,
        },
    )
    result = runner.invoke(app, ["ask", "how much does bob earn a year", "--vault", str(vault), "--json"])
    assert result.exit_code == 3, result.output
    assert json.loads(runner.invoke(app, ["status", "--vault", str(vault), "--json"]).stdout)["pages"] == 1
    assert runner.invoke(app, ["check", "--vault", str(vault)]).exit_code == 0


@pytest.mark.parametrize("kind", ["not utf-8", "a folder"])
def test_an_ignore_file_that_cannot_be_read_is_a_problem(tmp_path: Path, kind: str) -> None:
    """A cold review: it was skipped in silence and `krouter check` said "clean" while the pages it
    lists were indexed and cited."""
    vault = make(tmp_path, {"Private/Salaries.md": "# Salaries\n\nBob earns 90k a year.\n"})
    if kind == "a folder":
        (vault / ".krouterignore").mkdir()
    else:
        (vault / ".krouterignore").write_bytes(b"Priv\xffate/\n")
    result = runner.invoke(app, ["check", "--vault", str(vault), "--json"])
    assert result.exit_code == 1
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["kind"] == "ignore_file" and finding["path"] == ".krouterignore"
    expected = "none of its patterns apply" if kind == "a folder" else "the line holding it may not apply"
    assert expected in finding["message"] and finding["severity"] == "error"


def test_obsidian_excluded_files_apply_as_obsidian_applies_them(tmp_path: Path) -> None:
    """A bug hunt: an excluded file written as a regex ("/^Priv.*/") was skipped and a path ("Private/Pay")
    read as a whole name, so the pages Obsidian leaves out were indexed and cited, `krouter check` saying
    "clean"; so were all of them when app.json does not parse. A path excludes what starts so, a regex
    what it matches; what cannot apply is a problem of `check` and of `status`."""
    vault = make(
        tmp_path,
        {
            "Private/Pay.md": "# Pay\n\nThe walrus salary band is 90k.\n",
            "Drafts/Payroll.md": "# Payroll\n\nPayroll runs on the 25th.\n",
            "Public/Team.md": "# Team\n\nThe walrus team sits on floor 3.\n",
        },
    )
    app_json = vault / ".obsidian" / "app.json"
    app_json.parent.mkdir()
    app_json.write_text('{"userIgnoreFilters": ["/^Priv.*/", "Drafts/Pay"]}', encoding="utf-8")
    for question in ("walrus salary band", "when does payroll run"):
        out = json.loads(runner.invoke(app, ["ask", question, "--vault", str(vault), "--json"]).stdout)
        assert out["decision"] == "refuse", out
    assert runner.invoke(app, ["check", "--vault", str(vault)]).exit_code == 0
    # The cold review: a regex is asked of files alone ("names starting with _" left out the folder
    # _inbox whole), and "/" is no path (it left out the whole vault).
    (vault / "_inbox").mkdir()
    (vault / "_inbox" / "Alpha plan.md").write_text(
        "# Alpha plan\n\nAlpha launches in May.\n", encoding="utf-8"
    )
    (vault / "Public" / "_draft.md").write_text("# Draft\n\nThe beta launches in June.\n", encoding="utf-8")
    app_json.write_text('{"userIgnoreFilters": ["/(^|\\\\/)_[^/]+$/", "/", "//"]}', encoding="utf-8")
    cited = {
        q: json.loads(runner.invoke(app, ["ask", q, "--vault", str(vault), "--json"]).stdout)["decision"]
        for q in ("when does alpha launch", "when does the beta launch", "walrus salary band")
    }
    assert cited == {
        "when does alpha launch": "cite",
        "when does the beta launch": "refuse",
        "walrus salary band": "cite",
    }
    for written, expected in (
        ('{"userIgnoreFilters": ["/(?<x/"]}', "are not regular expressions KRouter reads"),
        ('{"userIgnoreFilters": ["Private/"],}', "Obsidian's excluded files are not left out"),
    ):
        app_json.write_text(written, encoding="utf-8")
        result = runner.invoke(app, ["check", "--vault", str(vault), "--json"])
        (finding,) = json.loads(result.stdout)["findings"]
        assert result.exit_code == 1 and finding["path"] == ".obsidian/app.json", finding
        assert expected in finding["message"]
        status = json.loads(runner.invoke(app, ["status", "--vault", str(vault), "--json"]).stdout)
        assert [p["path"] for p in status["problems"]] == [".obsidian/app.json"]


def test_one_stray_byte_in_the_ignore_file_leaves_its_other_lines_in_force(tmp_path: Path) -> None:
    """The diff review: one byte that is not UTF-8 dropped every pattern, and the private pages the
    other lines list were indexed and cited."""
    vault = make(
        tmp_path,
        {
            "Private/Salaries.md": "# Salaries\n\nBob earns 90k a year.\n",
            "Ops.md": page("Ops"),
        },
    )
    (vault / ".krouterignore").write_bytes(b"# caf\xe9 notes\nPrivate/\n")
    result = runner.invoke(app, ["ask", "how much does bob earn a year", "--vault", str(vault), "--json"])
    assert result.exit_code == 3, result.output
    assert "Private/Salaries.md" not in result.stdout
