"""A trigger (taught by an agent, learned at night or written by hand) must not outvote the pages on the
word that sets a question apart: a wording that shares that word and only part of the trigger stays
refused (a trigger the question holds whole is the owner's: D130), while a rewording the pages do not
use elsewhere is answered through its trigger."""

from __future__ import annotations

from pathlib import Path

from krouter.routing.router import Router

BACKEND = "Runbooks/Backend on-call rotation.md"
PAGES = {
    BACKEND: "---\ntitle: Backend on-call rotation\ntriggers:\n  - {trigger}\n---\n# Backend on-call rotation\n\n"
    "The backend on-call rotation changes every Monday at 10:00; the handoff happens in the ops channel.\n",
    "Teams/Frontend team.md": "# Frontend team\n\nThe frontend team owns the web app and the design system.\n",
    "Runbooks/Deploy.md": "# Deploy\n\nDeploys go out from the main branch after CI passes.\n",
}
# Other notes, so that word weights are those of a real vault rather than of three pages.
FILLER = [
    "Invoices are exported to the accounting system on the first day of each month.",
    "The search service indexes documents every night at two.",
    "Customer emails go through Postmark with a five second timeout.",
    "Backups of the main database are kept for thirty days.",
    "Pull requests need two approvals before they can be merged.",
    "The staging environment is reset every Sunday evening.",
    "Design reviews happen on Thursdays with the product lead.",
    "Secrets live in the vault service and are rotated quarterly.",
]


def vault_with_trigger(tmp_path: Path, trigger: str) -> Path:
    root = tmp_path / "vault"
    for rel, text in PAGES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text.replace("{trigger}", f'"{trigger}"'), encoding="utf-8")
    for n, line in enumerate(FILLER):
        (root / f"Notes/Note {n}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"Notes/Note {n}.md").write_text(f"# Note {n}\n\n{line}\n", encoding="utf-8")
    return root


def test_a_neighbour_question_written_as_a_trigger_answers_only_itself(tmp_path: Path) -> None:
    """A trigger holding 'frontend', the frontend team page's own word, which the backend page lacks:
    no teacher but the owner writes one (D130), so the question it holds whole cites the page; a wording
    that shares 'frontend' and only part of the trigger is still refused."""
    trigger = "Who is on the frontend on-call rotation this week?"
    root = vault_with_trigger(tmp_path, trigger)
    with Router(root) as router:
        asked = router.decide("who's on the frontend on-call rotation this week")
        partly = router.decide("who is on the frontend rotation")
    assert asked.decision == "cite" and asked.top is not None and asked.top.path == BACKEND, asked.reason
    assert partly.decision == "refuse", partly.reason
    assert partly.closest is not None and partly.closest.path == BACKEND
    assert "frontend" in partly.evidence.elsewhere_missing


def test_a_rewording_in_words_no_other_page_uses_is_answered_through_its_trigger(tmp_path: Path) -> None:
    question = "When does pager duty swap over?"
    root = vault_with_trigger(tmp_path, question)
    with Router(root) as router:
        r = router.decide("when does the pager duty swap over")
    assert r.decision == "cite" and r.top is not None and r.top.path == BACKEND, r.reason


METRICS = (
    "---\ntitle: Metrics definitions\n{triggers}---\n# Metrics definitions\n\n## Activity\n"
    "- DAU: users active on a calendar day (the app in the foreground at least once)\n\n## Retention\n"
    "- D1 retention: share of a day's new sign-ups who come back on day +1\n\n- D7 retention: the same, on day +7\n\n"
    "## Monetisation\n| Metric | Definition |\n|---|---|\n"
    "| ARPPU | revenue after store fees ÷ paying users, per calendar month |\n"
)


def test_a_trigger_the_question_does_not_express_changes_no_passage_of_the_page(tmp_path: Path) -> None:
    # An honest trigger ("daily actives") put 'active' in every passage of the metrics page, so a
    # neighbour asking for monthly actives, which no passage defines, looked answered (vault2, learn_bench).
    receipts = []
    for name, triggers in (("plain", ""), ("taught", 'triggers:\n  - "how do we count daily actives"\n')):
        root = tmp_path / name
        (root / "Data").mkdir(parents=True)
        (root / "Data/Metrics.md").write_text(METRICS.replace("{triggers}", triggers), encoding="utf-8")
        (root / "Data/Glossary.md").write_text(
            "# Glossary\n\nWe define every term once, here.\n", encoding="utf-8"
        )
        for n, line in enumerate(FILLER):
            (root / f"Notes/Note {n}.md").parent.mkdir(parents=True, exist_ok=True)
            (root / f"Notes/Note {n}.md").write_text(f"# Note {n}\n\n{line}\n", encoding="utf-8")
        with Router(root) as router:
            receipts.append(router.decide("How do we define monthly active users?"))
    plain, taught = receipts
    assert taught.closest is not None and taught.closest.path == "Data/Metrics.md"
    assert taught.evidence.passage_coverage == plain.evidence.passage_coverage
    assert taught.evidence.page_coverage == plain.evidence.page_coverage


TRAVEL = {
    "行政/出差交通.md": '---\ntitle: 出差交通\ntriggers:\n  - "出差用车怎么付钱"\n---\n# 出差交通\n\n'
    "出差打车统一用滴滴企业版，费用由公司月结，不需要个人垫付。\n",
    "办公室/成都办公室.md": "---\ntitle: 成都办公室\naliases: [成都用车]\n---\n# 成都办公室\n\n"
    "成都办公室的车由王师傅负责，提前一天在群里预约，油费找行政报销。\n",
    "行政/报销流程.md": "---\ntitle: 报销流程\n---\n# 报销流程\n\n报销单每月25号前提交，财务次月5号打款。\n",
}


def test_a_whole_trigger_does_not_count_when_the_questions_other_words_name_another_page(
    tmp_path: Path,
) -> None:
    """A cold review of D130: the trigger 出差用车怎么付钱 holds 用车, a word of the Chengdu office page's
    alias 成都用车 that its own page lacks. Asked as it is, it counts; "成都用车出差怎么付钱" holds it
    whole and the alias whole too, and cited the travel page, which mentions neither."""
    root = tmp_path / "vault"
    for rel, text in TRAVEL.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    for n, line in enumerate(FILLER):
        (root / f"Notes/Note {n}.md").parent.mkdir(parents=True, exist_ok=True)
        (root / f"Notes/Note {n}.md").write_text(f"# Note {n}\n\n{line}\n", encoding="utf-8")
    with Router(root) as router:
        asked = router.decide("出差用车怎么付钱")
        chengdu = router.decide("成都用车出差怎么付钱")
    assert asked.decision == "cite" and asked.top is not None and asked.top.path == "行政/出差交通.md"
    assert not (
        chengdu.decision == "cite" and chengdu.top is not None and chengdu.top.path == "行政/出差交通.md"
    ), chengdu.reason
