"""The decision mechanisms on small hand-made vaults: each test names the mechanism it pins."""

from __future__ import annotations

from pathlib import Path

from krouter import Router
from tests.vault_files import write

PAYMENTS = """---
title: Payments API timeout
---
# Payments API timeout

Calls to the payments provider time out after 8 seconds and are retried twice.
"""
EMAIL = """---
title: Email API timeout
---
# Email API timeout

The email vendor API times out after 20 seconds; failed sends go to a retry queue.
"""
SEARCH_IDX = """---
title: Search index rebuild
---
# Search index rebuild

The search index is rebuilt nightly from the product catalogue.
"""
DATABASE = """---
title: Primary database
aliases: [main datastore]
---
# Primary database

We run PostgreSQL 16 on a managed instance, with read replicas for reporting.
"""


def test_neighbour_is_refused_with_the_missing_word_named(tmp_path: Path) -> None:
    """'search' is in the vault, but not on a timeout page: the neighbour signal, not a missing word."""
    vault = write(tmp_path, {"Payments.md": PAYMENTS, "Email.md": EMAIL, "Search.md": SEARCH_IDX})
    with Router(vault) as router:
        receipt = router.decide("What is the search API timeout?")
        answered = router.decide("What is the payments API timeout?")
    assert receipt.decision == "refuse"
    assert receipt.evidence.corpus_missing == []
    assert receipt.top is None and receipt.closest is not None and receipt.closest.missing
    assert set(receipt.closest.missing) <= set(receipt.evidence.elsewhere_missing)
    assert "another page has it" in receipt.reason or "other pages have them" in receipt.reason
    assert answered.decision == "cite" and answered.top is not None and answered.top.path == "Payments.md"


def test_word_the_vault_never_contains_is_reported_and_refused(tmp_path: Path) -> None:
    vault = write(tmp_path, {"Payments.md": PAYMENTS, "Email.md": EMAIL})
    with Router(vault) as router:
        receipt = router.decide("What is the kubernetes API timeout?")
    assert receipt.decision == "refuse"
    assert receipt.evidence.corpus_missing == ["kubernetes"]


def test_paraphrase_of_a_title_is_answered(tmp_path: Path) -> None:
    """Stemming and aliases: 'datastores' meets the alias 'main datastore'."""
    vault = write(tmp_path, {"Decisions/Primary database.md": DATABASE, "Payments.md": PAYMENTS})
    with Router(vault) as router:
        receipt = router.decide("which main datastores do we run?")
    assert receipt.decision == "cite"
    assert receipt.top is not None and receipt.top.path == "Decisions/Primary database.md"


def test_chain_is_redirected_to_the_current_page(tmp_path: Path) -> None:
    """A question in the old page's words reaches the end of the chain, and the receipt says how."""
    vault = write(
        tmp_path,
        {
            "Decisions/Hosting 2022.md": "---\nstatus: superseded\nsuperseded_by: Decisions/Hosting 2024\n---\n"
            "# Hosting\n\nProduction runs on Heroku dynos.\n",
            "Decisions/Hosting 2024.md": "---\nstatus: superseded\nsuperseded_by: '[[Hosting 2025]]'\n---\n"
            "# Hosting\n\nProduction moved to Fly.io machines.\n",
            "Decisions/Hosting 2025.md": "---\nsupersedes: '[[Decisions/Hosting 2024]]'\n---\n"
            "# Deployment platform\n\nWe deploy to Kubernetes on Hetzner.\n",
            "Payments.md": PAYMENTS,
            "Email.md": EMAIL,
            "Tools/Editor.md": "# Editor\n\nWe use Neovim and use ruff on save.\n",
            "Tools/Chat.md": "# Chat\n\nWe use Slack for chat.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("do we still use heroku dynos?")
    assert receipt.decision == "cite"
    assert receipt.top is not None and receipt.top.path == "Decisions/Hosting 2025.md"
    assert receipt.top.via == "Decisions/Hosting 2022.md"
    (redirect,) = [r for r in receipt.redirects if r.from_path == "Decisions/Hosting 2022.md"]
    assert redirect.chain == [
        "Decisions/Hosting 2022.md",
        "Decisions/Hosting 2024.md",
        "Decisions/Hosting 2025.md",
    ]
    assert all(c.path != "Decisions/Hosting 2022.md" for c in receipt.cited)


def test_two_pages_that_tie_lower_clarity(tmp_path: Path) -> None:
    """Clarity: when the next page matches as well as the first, confidence is about halved."""
    twin = "# Backup window\n\nBackups run at 02:00 UTC.\n"
    vault = write(tmp_path, {"A/Backups.md": twin, "B/Backups.md": twin, "Payments.md": PAYMENTS})
    alone = write(tmp_path / "alone", {"A/Backups.md": twin, "Payments.md": PAYMENTS})
    with Router(vault) as router:
        tied = router.decide("when is the backup window?")
    with Router(alone) as router:
        clear = router.decide("when is the backup window?")
    assert clear.decision == "cite" and clear.evidence.confidence >= 0.9
    assert tied.evidence.margin == 0
    assert tied.decision == "refuse"
    assert abs(tied.evidence.confidence - clear.evidence.confidence / 2) < 0.05


def test_clipped_input_ranks_below_the_vaults_own_page(tmp_path: Path) -> None:
    """A clipping that matches as well as (here: better than) the vault's own page comes second."""
    own = "# Provider limits\n\nThe payments API timeout is 8 seconds.\n"
    clipping = "# Payments API timeout\n\nThe payments API timeout is 30 seconds at most providers.\n"
    vault = write(
        tmp_path, {"Ops/Limits.md": own, "Inputs/Payments API timeout.md": clipping, "Email.md": EMAIL}
    )
    with Router(vault) as router:
        receipt = router.decide("payments API timeout")
    assert [c.path for c in receipt.candidates[:2]] == ["Ops/Limits.md", "Inputs/Payments API timeout.md"]


def test_decision_does_not_depend_on_how_many_pages_are_shown(tmp_path: Path) -> None:
    """Clarity is measured against the full ranking: k=1 must not hide a tying runner-up."""
    vault = write(
        tmp_path,
        {
            "a.md": "# Staging cluster\n\nThe staging cluster runs Postgres 15 on port 5432.\n",
            "b.md": "# Production cluster\n\nThe production cluster runs Postgres 15 on port 5433.\n",
            "Email.md": EMAIL,
        },
    )
    with Router(vault) as router:
        one, five = router.decide("postgres cluster port", k=1), router.decide("postgres cluster port", k=5)
    assert one.decision == five.decision == "refuse"
    assert one.evidence == five.evidence
    # The refusal names the runner-up ("leads b.md by"), so it is listed at k=1 too (D131).
    assert len(one.candidates) == len(five.candidates) == 2


def test_scattered_words_count_less_than_words_in_one_passage(tmp_path: Path) -> None:
    """Passage evidence: a daily log that mentions each word somewhere is not a page about them."""
    together = "# Notes\n\nThe kafka consumer lag alert fires above 5000 messages.\n"
    scattered = (
        "# Log\n\nKafka upgrade planned.\n\nLunch with the team.\n\nPager was quiet.\n\n"
        "Reviewed the consumer onboarding doc.\n\nBudget meeting.\n\nLag in the office wifi again.\n\n"
        "Alert fatigue discussed.\n"
    )
    a = write(tmp_path / "a", {"Notes.md": together, "Email.md": EMAIL})
    b = write(tmp_path / "b", {"Log.md": scattered, "Email.md": EMAIL})
    with Router(a) as router:
        one = router.decide("kafka consumer lag alert")
    with Router(b) as router:
        spread = router.decide("kafka consumer lag alert")
    assert one.evidence.passage_coverage == one.evidence.page_coverage == 1.0
    assert spread.evidence.page_coverage == 1.0
    assert spread.evidence.passage_coverage <= 0.5
    assert spread.evidence.confidence < one.evidence.confidence


def test_redirects_listed_are_the_ones_that_led_to_a_listed_page(tmp_path: Path) -> None:
    vault = write(
        tmp_path,
        {
            "Old db.md": "---\nstatus: superseded\nsuperseded_by: New db\n---\n# Database\n\nMySQL 5.7.\n",
            "New db.md": "# Database\n\nPostgreSQL 16.\n",
            "Backups.md": "# Backups\n\nNightly backup restore drills, every Friday.\n",
            "Payments.md": PAYMENTS,
        },
    )
    with Router(vault) as router:
        receipt = router.decide("how do I restore a database backup", k=1)
    assert receipt.top is not None and receipt.top.path == "Backups.md"
    assert receipt.redirects == []


def test_a_dead_end_below_the_top_page_is_not_listed(tmp_path: Path) -> None:
    # A replaced page with no current page, matched on a filler word only, was listed as "skipped"
    # under an answer about something else.
    vault = write(
        tmp_path,
        {
            "Queue.md": "# Message queue\n\nWe use Kafka for order events.\n",
            "Old CI.md": "---\nstatus: superseded\nsuperseded_by: CI - GitHub Actions\n---\nWe used Travis.\n",
            "Wifi.md": "# Wifi\n\nThe office wifi is called larkspur.\n",
            "VPN.md": "# VPN\n\n"
            + "Connect from home with WireGuard before you open the admin pages. " * 6
            + "\n\nUse the company laptop.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("which message queue do we use")
        ci = router.decide("which CI did we use, travis?")
    assert receipt.top is not None and receipt.top.path == "Queue.md"
    assert [c.path for c in receipt.candidates] == ["Queue.md", "VPN.md"]
    assert receipt.redirects == [] and "Old CI.md" not in receipt.to_text()
    assert [r.from_path for r in ci.redirects] == ["Old CI.md"]  # the best match was the dead end


def test_a_replacement_is_not_credited_with_its_replaced_pages_words(tmp_path: Path) -> None:
    vault = write(
        tmp_path,
        {
            "Queue - RabbitMQ.md": "---\nstatus: superseded\nsuperseded_by: Queue - Kafka\n---\n"
            "RabbitMQ queues are mirrored across three nodes.\n",
            "Queue - Kafka.md": "# Queue\n\nOrder events go through Kafka, replacing RabbitMQ.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("are the RabbitMQ queues mirrored")
    assert receipt.top is not None and receipt.top.path == "Queue - Kafka.md"
    assert not receipt.reason.startswith("Queue - Kafka.md holds")
    assert "with the replaced page Queue - RabbitMQ.md" in receipt.reason
    # The words the current page does not hold are named as the replaced page's (a walkthrough read
    # "matched: ... mirrored" as the Kafka page saying so).
    assert receipt.top.via_words == ["mirrored"]
    assert "only on the replaced page Queue - RabbitMQ.md: mirrored" in receipt.to_text()


def test_words_matched_only_by_a_trigger_are_named(tmp_path: Path) -> None:
    vault = write(
        tmp_path,
        {
            "People/王芳.md": "---\ntitle: 王芳\ntriggers:\n  - who is responsible for payments\n---\n"
            "王芳是支付服务的对接人。\n",
            "People/李雷.md": "---\ntitle: 李雷\n---\n李雷负责搜索服务。\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("who is responsible for payments")
        plain = router.decide("王芳对接什么")
    assert receipt.decision == "cite" and receipt.top is not None
    assert receipt.top.via_triggers == ["responsible", "payments"]
    assert "only through its triggers" in receipt.reason
    assert "through its triggers only: responsible, payments" in receipt.to_text()
    assert plain.top is not None and plain.top.via_triggers == []


def test_a_trigger_word_the_citation_does_not_need_is_not_named(tmp_path: Path) -> None:
    vault = write(
        tmp_path,
        {
            "People/Wang Fang.md": "---\ntitle: Wang Fang\ntriggers:\n  - who handles payments refunds invoices ledger\n"
            "---\nWang Fang handles payments, refunds and invoices for the company.\n",
            "People/Li Lei.md": "---\ntitle: Li Lei\n---\nLi Lei runs the search team.\n",
        },
    )
    with Router(vault) as router:
        receipt = router.decide("who handles payments refunds invoices ledger")
    assert receipt.decision == "cite" and receipt.top is not None
    assert receipt.top.via_triggers == []  # its text alone clears the floor; "ledger" changes nothing


def test_a_page_matching_only_a_lone_character_is_not_cited(tmp_path: Path) -> None:
    # 周会 (the weekly meeting) is a word the vault lacks; cut to 周 + 会, only 周 was left, and the
    # on-call page (每周一) was cited at full coverage for "when is the weekly meeting".
    vault = write(
        tmp_path,
        {
            "运维/值班安排.md": "---\ntitle: 值班安排\n---\n每周一早上 9 点交接值班。值班一次三天。\n",
            "People/王芳.md": "---\ntitle: 王芳\n---\n她每周三下午不在办公室。\n",
        },
    )
    with Router(vault) as router:
        meeting = router.decide("周会几点")
        duty = router.decide("值班一次要值几天")
    assert meeting.decision == "refuse" and "single character(s) '周'" in meeting.reason
    assert duty.decision == "cite" and duty.top is not None and duty.top.path == "运维/值班安排.md"


def test_a_one_character_word_the_title_names_is_cited(tmp_path: Path) -> None:
    vault = write(
        tmp_path,
        {
            "茶.md": "---\ntitle: 茶\n---\n茶叶放在二楼的柜子里。\n",
            "鍵.md": "---\ntitle: 鍵\n---\n事務所の鍵は受付にあります。\n",
            "值班.md": "---\ntitle: 值班安排\n---\n每周一早上 9 点交接。\n",
        },
    )
    with Router(vault) as router:
        tea = router.decide("茶在哪?")
        key = router.decide("鍵はどこ?")
    assert tea.decision == "cite" and tea.top is not None and tea.top.path == "茶.md"
    assert key.decision == "cite" and key.top is not None and key.top.path == "鍵.md"


SESSION = """---
title: Session 3
---

**Jon**: Hey Gina, the new store looks amazing! What made you pick that furniture?

**Gina**: Thanks! I wanted my customers to feel cozy, so I chose comfy sofas and warm lights.

**Jon**: That sounds great. I am still looking for a space for my dance studio.

**Gina**: You will find one soon, Jon. Keep me posted!
"""


def test_a_speakers_question_is_not_answered_by_the_other_speakers_turn(tmp_path: Path) -> None:
    # LoCoMo's adversarial questions swap the speaker: Gina's words cited for a question about Jon.
    vault = write(tmp_path, {"session_3.md": SESSION, "session_1.md": "**Jon**: Hi.\n\n**Gina**: Hello.\n"})
    with Router(vault) as router:
        swapped = router.decide("What did Jon want his customers to feel in his store?")
        asked = router.decide("What did Gina want her customers to feel in her store?")
    assert swapped.decision == "refuse" and "asks about Jon" in swapped.reason
    assert asked.decision == "cite" and asked.top is not None and asked.top.path == "session_3.md"


def test_the_named_speakers_reply_in_the_next_turn_answers(tmp_path: Path) -> None:
    session = (
        "**Gina**: How long have you been dancing, Jon?\n\n"
        "**Jon**: Since college, so ten years of dancing now.\n\n"
        "**Gina**: Wow. My store opens next week and I am nervous.\n\n"
        "**Jon**: You will do great, Gina!\n"
    )
    vault = write(tmp_path, {"session_2.md": session, "session_1.md": "**Jon**: Hi.\n\n**Gina**: Hello.\n"})
    with Router(vault) as router:
        receipt = router.decide("How long has jon been dancing?")  # a lowercase name is still Jon
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "session_2.md"


def test_a_named_speaker_echoing_a_word_does_not_own_the_others_turn(tmp_path: Path) -> None:
    session = (
        "**Gina**: I wanted my customers to feel cozy in the store.\n\n"
        "**Jon**: Your customers will love it!\n\n"
        "**Gina**: Thanks, Jon.\n\n"
        "**Jon**: See you, Gina.\n"
    )
    vault = write(tmp_path, {"session_4.md": session, "session_1.md": "**Jon**: Hi.\n\n**Gina**: Hello.\n"})
    with Router(vault) as router:
        receipt = router.decide("What did jon want his customers to feel in the store?")
    assert receipt.decision == "refuse" and "asks about Jon" in receipt.reason


def test_labels_used_once_each_are_not_a_conversation(tmp_path: Path) -> None:
    page = "# Stripe\n\n**Mara**: The Stripe read timeout is 10 seconds.\n\n**Tom**: Thanks!\n"
    vault = write(tmp_path, {"Stripe.md": page, "Email.md": EMAIL})
    with Router(vault) as router:
        receipt = router.decide("What did Tom say about the Stripe read timeout?")
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "Stripe.md"


def test_bold_labels_that_are_not_a_conversation_change_nothing(tmp_path: Path) -> None:
    page = "# Payments\n\n**Owner**: Mara Lindqvist\n\n**Timeout**: the Stripe read timeout is 10 seconds.\n"
    vault = write(tmp_path, {"Payments.md": page, "Email.md": EMAIL})
    with Router(vault) as router:
        receipt = router.decide("What is the Stripe read Timeout?")
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "Payments.md"


def test_question_frames_are_not_content(tmp_path: Path) -> None:
    """'how long' asks about a duration; the page need not contain the word 'long'."""
    vault = write(tmp_path, {"Payments.md": PAYMENTS, "Email.md": EMAIL})
    with Router(vault) as router:
        receipt = router.decide("How long before a payments call times out?")
    assert "long" not in receipt.evidence.query_terms
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "Payments.md"


def test_asking_for_a_decision_is_a_frame_not_content(tmp_path: Path) -> None:
    """'which CI did we pick': a replaced page that says "we picked it" and holds "ci" inside an
    identifier outranked the CI page and had its replacement cited; 'decide' likewise sent 'what did we
    decide about deploys' to whichever page says "decided"."""
    vault = write(
        tmp_path,
        {
            "Database - MySQL.md": "---\nstatus: superseded\nsuperseded_by: Primary database\n---\n"
            "The main store is MySQL 5.7. We picked it because we knew it.\n\n"
            "- Collation `utf8mb4_unicode_ci`.\n",
            "Primary database.md": "---\nsupersedes: Database - MySQL\n---\nWe run PostgreSQL 16, "
            "decided 2025-01-22 after the MySQL end-of-life review.\n",
            "Continuous integration.md": "---\naliases: [CI]\n---\nCI runs on GitHub Actions for every "
            "pull request.\n",
            "Deployment platform.md": "---\naliases: [hosting]\n---\nWe deploy to Kubernetes on Hetzner; "
            "releases reach production through Argo CD.\n",
        },
    )
    with Router(vault) as router:
        ci = router.decide("which CI did we pick")
        deploys = router.decide("what did we decide about deploys")
    assert ci.evidence.query_terms == ["ci"]
    assert ci.top is not None and ci.top.path == "Continuous integration.md"
    assert deploys.evidence.query_terms == ["deploys"]
    assert deploys.top is not None and deploys.top.path == "Deployment platform.md"


def test_everyday_asking_words_are_frames(tmp_path: Path) -> None:
    """A tag ("..., right?"), "any way to" and vague amounts ("a couple of weeks ago") ask; they name
    nothing a page must hold."""
    vault = write(tmp_path, {"Payments.md": PAYMENTS, "Email.md": EMAIL})
    with Router(vault) as router:
        tag = router.decide("Payments calls time out after a while, right?")
        way = router.decide("is there any way to retry payments calls?")
        ago = router.decide("did the payments timeout change a couple of weeks ago?")
    assert "right" not in tag.evidence.query_terms
    assert not {"way", "any"} & set(way.evidence.query_terms)
    assert not {"couple", "ago"} & set(ago.evidence.query_terms) and "weeks" in ago.evidence.query_terms
    assert way.decision == "cite" and way.top is not None and way.top.path == "Payments.md"
    with Router(vault) as router:
        # Not a tag: no comma before it, and it is what the question asks about.
        assert "right" in router.decide("do the payments retries go left or right?").evidence.query_terms
        assert router.decide("what's the right way to raise the payments timeout?").evidence.query_terms == [
            "raise",
            "payments",
            "timeout",
        ]


def test_prepositions_in_several_words_and_stuff_are_grammar(tmp_path: Path) -> None:
    """ "in front of", "on top of", "instead of" are prepositions and "stuff" is "things": a page needs none
    of them. Counted as content, "front" kept "what's the right way to get a build in front of Megan?"
    from the page on sending Megan builds (a dev question, 0.20 against the floor)."""
    vault = write(
        tmp_path,
        {
            "Megan - how to send builds.md": "# Sending Megan builds\n\nUpload the build to TestFlight and "
            "post the link in the #publisher channel; Megan reviews builds on Tuesdays.\n",
            "Tomasz Nowak.md": "# Tomasz Nowak\n\nTime zone: CET. Owns the shader pipeline and the "
            "build machines.\n",
        },
    )
    with Router(vault) as router:
        front = router.decide("What's the right way to get a build in front of Megan?")
        stuff = router.decide("What stuff does Tomasz own?")
        instead = router.decide("Do we use TestFlight on top of the channel, instead of email?")
    assert front.evidence.query_terms == ["build", "megan"]
    assert (
        front.decision == "cite"
        and front.top is not None
        and front.top.path == "Megan - how to send builds.md"
    )
    assert stuff.evidence.query_terms == ["tomasz"]
    assert stuff.decision == "cite" and stuff.top is not None and stuff.top.path == "Tomasz Nowak.md"
    assert not {"front", "top", "instead", "stuff"} & set(instead.evidence.query_terms)
    with Router(vault) as router:
        # The kind of answer asked for: "what type of" is "what kind of"; "what activity" names no subject.
        kind = router.decide("What type of build does Megan review, and which activities does Tomasz own?")
    assert kind.evidence.query_terms == ["build", "megan", "review", "tomasz"]
    with Router(vault) as router:
        # "How many times" is "how often": the times are counted, not named.
        assert router.decide("How many times has Megan reviewed builds?").evidence.query_terms == [
            "megan",
            "reviewed",
            "builds",
        ]
    with Router(vault) as router:
        # "front" alone is a word: "the front page" asks about a front page.
        assert "front" in router.decide("who owns the front page?").evidence.query_terms


def test_days_counted_from_the_askers_now_are_not_content(tmp_path: Path) -> None:
    """今天, 刚才, "today", "recently" are the asker's now: no page holds it. Counted as content, 今天 was
    a word "the page lacks" in "今天周五想发版到线上，几点之前能发" and kept an honest agent's lesson out."""
    vault = write(
        tmp_path,
        {
            "运维手册/生产环境部署.md": "# 生产环境部署\n\n周一到周四 18:00 前可以发版到生产；周五不发版。\n",
            "Runbooks/Deploy freeze.md": "# Deploy freeze\n\nNo production deploys on Fridays.\n",
        },
    )
    with Router(vault) as router:
        zh = router.decide("今天周五，生产还能发版吗？刚才不是说可以吗")
        en = router.decide("Did the production deploys rule change recently? Can I deploy today?")
    assert not {"今天", "刚才"} & set(zh.evidence.query_terms)
    assert zh.candidates[0].path == "运维手册/生产环境部署.md"
    assert not {"recently", "today"} & set(en.evidence.query_terms)
    assert en.candidates[0].path == "Runbooks/Deploy freeze.md"
    with Router(vault) as router:
        # Adverbs of habit ask how things usually go, as "often" and "still" do.
        habit = router.decide("Do we usually deploy on Fridays, or not anymore?")
    assert habit.evidence.query_terms == ["deploy", "fridays"]


def test_pointing_words_are_not_content(tmp_path: Path) -> None:
    """这 or 那 with a measure word (那家, 这次) points at what the question names elsewhere, as 这个 and
    那个 do: "日语翻译还是找言叶那家做吗" asks about 言叶, and no page needs to say 那家."""
    vault = write(
        tmp_path,
        {
            "供应商/言叶翻译.md": "# 言叶翻译\n\n日语翻译由言叶负责，按字计费。\n",
            "供应商/韩语翻译.md": "# 韩语翻译\n\n韩语翻译由 Hanbit 负责。\n",
        },
    )
    with Router(vault) as router:
        asked = router.decide("日语翻译还是找言叶那家做吗？这次也是？")
        # The dev7 and colloquial agent loops: 那段 and 那套 point too.
        stretch = router.decide("日本那段翻译找谁？自己搭的那套流程还用吗")
    assert not {"那家", "这次"} & set(asked.evidence.query_terms)
    assert asked.candidates[0].path == "供应商/言叶翻译.md"
    assert not {"那段", "那套", "段", "套"} & set(stretch.evidence.query_terms), stretch.evidence.query_terms


def test_a_surname_after_na_is_no_pointing_word(tmp_path: Path) -> None:
    """A second cold review: with 张 a pointing measure word, "那张总的电话是多少" cited 李总's page (总 and
    电话 were all that was left)."""
    vault = write(
        tmp_path,
        {
            "人事/张总.md": "# 张总\n\n电话 138 0000 1111，周一到周五在杭州。\n",
            "人事/李总.md": "# 李总\n\n电话 139 0000 2222。\n",
        },
    )
    with Router(vault) as router:
        asked = router.decide("那张总的电话是多少")
    assert asked.candidates[0].path == "人事/张总.md", asked.reason


def test_a_pointing_word_the_segmenter_cut_in_two_is_not_content(tmp_path: Path) -> None:
    """jieba cuts "登录那块 SDK" into 那 + 块 (but "工资那块咋算" into 那块): the 块 left over was a word
    the page lacked. The noun after 那块 still counts; 块 after a number (300块) is money or a measure
    word, no word either since D134."""
    vault = write(
        tmp_path,
        {
            "运维手册/登录SDK超时.md": "# 登录 SDK 超时\n\n登录 SDK 的超时是 8 秒，重试一次。\n",
            "运维手册/支付SDK超时.md": "# 支付 SDK 超时\n\n支付 SDK 的超时是 15 秒。\n",
        },
    )
    with Router(vault) as router:
        asked = router.decide("登录那块 SDK 超时是几秒？")
        board = router.decide("那块板子多少钱")
        price = router.decide("300块一个吗")
    assert "块" not in asked.evidence.query_terms and asked.decision == "cite"
    assert asked.top is not None and asked.top.path == "运维手册/登录SDK超时.md"
    # 钱 of 多少钱 asks a price (D93): the noun after 那块 is what is left.
    assert board.evidence.query_terms == ["板子"]
    assert "块" not in price.evidence.query_terms and "300" in price.evidence.query_terms


def test_ties_at_the_edge_of_the_walked_pages_rank_by_path_whatever_k(tmp_path: Path) -> None:
    """Many pages with the same score: the top page must not depend on k or on indexing order."""
    same = "# Note\n\nThe ferry timetable changes in spring.\n"
    vault = write(tmp_path, {f"B{i:02}.md": same for i in range(61)})
    with Router(vault) as router:
        router.refresh()
        (vault / "A.md").write_text(same, encoding="utf-8")
        one, five = router.decide("ferry timetable", k=1), router.decide("ferry timetable", k=5)
    assert one.candidates[0].path == five.candidates[0].path == "A.md"


def test_receipt_lists_a_bounded_number_of_redirects(tmp_path: Path) -> None:
    pages = {
        f"Archive/v{i}.md": "---\nstatus: superseded\nsuperseded_by: Broker\n---\nThe broker is rabbitmq 3.\n"
        for i in range(40)
    }
    pages["Broker.md"] = "# Broker\n\nWe run NATS.\n"
    pages["Other.md"] = EMAIL
    vault = write(tmp_path, pages)
    with Router(vault) as router:
        receipt = router.decide("rabbitmq broker")
    assert receipt.top is not None and receipt.top.path == "Broker.md"
    assert 0 < len(receipt.redirects) <= 20


def test_the_other_speaker_asking_the_named_one_is_answered_by_the_reply(tmp_path: Path) -> None:
    """LoCoMo: Nate asks "what's your favorite genre?", Joanna's reply names no word of the question."""
    session = (
        "**Joanna**: Besides writing, I also enjoy reading and walks.\n\n"
        "**Nate**: I love action and sci-fi movies! What about you, what's your favorite genre?\n\n"
        "**Joanna**: I'm all about dramas and romcoms.\n\n"
        "**Nate**: Cool, I might watch one soon.\n"
    )
    vault = write(
        tmp_path, {"session_1.md": session, "session_2.md": "**Nate**: Hi.\n\n**Joanna**: Hello.\n"}
    )
    with Router(vault) as router:
        asked = router.decide("What genre of movies is Joanna's favorite?")
        told = router.decide("What genre of movies does Nate love?")
    assert asked.decision == "cite" and asked.top is not None and asked.top.path == "session_1.md"
    assert told.decision == "cite"


def test_the_other_speaker_talking_about_themselves_still_does_not_answer(tmp_path: Path) -> None:
    session = (
        "**Nate**: I love action and sci-fi movies, the effects are so cool! Is that weird?\n\n"
        "**Joanna**: Not at all.\n\n"
        "**Nate**: Good.\n\n"
        "**Joanna**: Bye.\n"
    )
    vault = write(
        tmp_path, {"session_1.md": session, "session_2.md": "**Nate**: Hi.\n\n**Joanna**: Hello.\n"}
    )
    with Router(vault) as router:
        receipt = router.decide("Which movies does Joanna love, action and sci-fi?")
    assert receipt.decision == "refuse" and "asks about Joanna" in receipt.reason


def test_a_chinese_turn_asking_the_named_speaker_is_answered_by_the_reply(tmp_path: Path) -> None:
    session = (
        "**小王**：我最近在看科幻片。您最喜欢哪种电影？\n\n"
        "**小李**：我更喜欢纪录片和老电影。\n\n"
        "**小王**：好的，下次一起看。\n\n"
        "**小李**：没问题。\n"
    )
    vault = write(
        tmp_path, {"session_1.md": session, "session_2.md": "**小王**：你好。\n\n**小李**：你好。\n"}
    )
    with Router(vault) as router:
        receipt = router.decide("小李最喜欢哪种电影")
    assert receipt.decision == "cite" and receipt.top is not None and receipt.top.path == "session_1.md"


def test_a_question_naming_another_page_is_not_answered_by_this_one(tmp_path: Path) -> None:
    """A walkthrough's "王磊的邮箱是多少" cited Sarah Chen's email at 90% while 王磊 has his own page."""
    root = write(
        tmp_path,
        {
            "People/Sarah Chen.md": "---\ntitle: Sarah Chen\n---\nFirmware lead. Email: sarah@kitelabs.io.\n",
            "People/王磊.md": "---\ntitle: 王磊\n---\n硬件负责人。手机 138-0000-1111。\n",
            "PCB.md": "---\ntitle: PCB 工厂\n---\n量产 PCBA 由华秋负责。对接人：王磊。\n",
            "质检.md": "---\ntitle: 质检\n---\n质检报告签字人：王磊。\n",
            "周会.md": "---\ntitle: 周会\n---\n参会：张伟、王磊、李静。\n",
        },
    )
    with Router(root) as router:
        receipt = router.ask("王磊的邮箱是多少")
        own = router.ask("what is Sarah Chen's email")
    assert receipt.decision == "refuse"
    assert "names '王磊', the page People/王磊.md" in receipt.reason
    assert own.decision == "cite" and own.top is not None and own.top.path == "People/Sarah Chen.md"


PEOPLE = {
    "People/Priya Nair.md": "---\ntitle: Priya Nair\n---\n# Priya Nair\n\nPriya leads the platform team.\n",
    "People/Sarah Chen.md": "---\ntitle: Sarah Chen\n---\n# Sarah Chen\n\nSarah's birthday is on June 3.\n",
    **{
        f"Note {i}.md": f"---\ntitle: Note {i}\n---\n# Note {i}\n\nThe plants are watered on day {i}.\n"
        for i in range(6)
    },
}


def test_a_name_in_several_words_counts_once(tmp_path: Path) -> None:
    """D61: "Priya Nair's birthday" on Priya's page, which holds no birthday (Sarah's does), was cited at
    0.67, her name's two words two thirds of the question; "Priya's birthday" was refused."""
    vault = write(tmp_path, PEOPLE)
    with Router(vault) as router:
        full = router.decide("when is Priya Nair's birthday")
        first = router.decide("what is Priya's birthday")
        answered = router.decide("what does Priya Nair lead")
    assert full.decision == "refuse" and first.decision == "refuse"
    assert full.closest is not None and full.closest.path == "People/Priya Nair.md"
    assert full.evidence.coverage == first.evidence.coverage == 0.5
    assert answered.decision == "cite" and answered.top is not None
    assert answered.top.path == "People/Priya Nair.md"


def test_a_question_in_capitals_is_weighed_as_in_lower_case(tmp_path: Path) -> None:
    """D61 and D59 read capitals as names; in a question written in capitals every word has them."""
    vault = write(tmp_path, {"Payments.md": PAYMENTS, "Email.md": EMAIL, "Search.md": SEARCH_IDX})
    with Router(vault) as router:
        lower = router.decide("what is the payments api timeout in production")
        upper = router.decide("WHAT IS THE PAYMENTS API TIMEOUT IN PRODUCTION")
    assert (upper.decision, upper.evidence.coverage) == (lower.decision, lower.evidence.coverage)


def test_a_refusal_names_a_word_only_a_replaced_page_holds(tmp_path: Path) -> None:
    """A question word the vault holds only on a replaced page is neither "never mentioned" nor on another
    page that could be cited: the reason said "the question does not say which" of two timeout pages
    for a push-API timeout the question named (an agent-loop run)."""
    old = "---\ntitle: Push API timeout\nstatus: superseded\nsuperseded_by: Gone.md\n---\nThe push API timed out after 3 s.\n"
    write(tmp_path, {"Payments.md": PAYMENTS, "Email.md": EMAIL, "Old push.md": old})
    with Router(tmp_path) as router:
        receipt = router.ask("what is the push API timeout")
    assert receipt.decision == "refuse"
    assert "lacks 'push' (only replaced pages hold it: Old push.md)" in receipt.reason
    assert "does not say which" not in receipt.reason
    # Not said where the closest page's own trigger holds the word (the diff review).
    triggered = PAYMENTS.replace(
        "title: Payments API timeout\n", "title: Payments API timeout\ntriggers: [push gateway hiccup]\n"
    )
    write(tmp_path, {"Payments.md": triggered})
    with Router(tmp_path) as router:
        receipt = router.ask("what is the push API timeout")
    assert "only replaced pages" not in receipt.reason


def test_an_acronym_asked_singular_finds_the_plural_a_page_writes(tmp_path: Path) -> None:
    """The stemmer leaves a vowelless plural as written (PRs, SDKs), so "PR" was a name "no page of the
    vault mentions" on a page saying "PRs" (an agent-loop run, D136)."""
    vault = write(
        tmp_path,
        {
            "Code review.md": "# Code review\n\nPRs need 2 approvals before merging; SDKs are reviewed by Mina.\n",
            "Search.md": "# Search\n\nReindexing runs nightly.\n",
        },
    )
    with Router(vault) as router:
        pr = router.decide("How many approvals does a PR need before merging?")
        sdk = router.decide("Who reviews the SDK?")
    assert pr.decision == "cite" and pr.top is not None and pr.top.path == "Code review.md", pr.reason
    assert sdk.decision == "cite" and sdk.top is not None and sdk.top.path == "Code review.md", sdk.reason


def test_a_refusal_lists_a_page_holding_the_question_in_one_line_among_its_first(tmp_path: Path) -> None:
    """An agent-loop run answered "not covered" for "给英国寄样品一般走啥快递" while a preferences page
    said "寄样品:到英国和荷兰都用 DHL Express" in one line: the page scored fourth, below pages whose words
    were spread apart, and a refusal lists three. Past the closest page and the runner-up its reason
    names, the places go to the pages one passage of which holds most of the question."""
    pages = {
        "Freight.md": "# Freight\n\nSea freight to the UK goes by full container. The forwarder pays the port "
        "fees.\n\nSamples of packaging are checked at the factory.\n\nUK customs clears the container in "
        "two days.\n\nWho pays demurrage: the forwarder, if late.\n",
        "Parcels.md": "# Parcels\n\nUK parcels leave with Royal Mail. Courier pickups at four.\n\nThe shop pays postage.\n",
        "Returns.md": "# Returns\n\nCustomers in the UK send returns by courier; we pay the label.\n",
        "Factory habits.md": "# Factory habits\n\n- Daily chat in the WeChat group\n- PO changes by email too\n"
        "- Quotes in RMB, FOB Yantian\n- No inspections on Friday afternoon\n"
        "- Sending samples to the UK: DHL Express, we pay, tracking number into the group\n"
        "- CC Hannah on English email\n",
        **{f"Note {i}.md": f"# Note {i}\n\nRoutine office note {i}.\n" for i in range(8)},
    }
    vault = write(tmp_path, pages)
    with Router(vault) as router:
        receipt = router.decide("which courier do we use for sending samples to the UK, and who pays?", k=3)
    assert receipt.decision == "refuse", receipt.reason
    paths = [c.path for c in receipt.candidates]
    assert paths[:2] == ["Returns.md", "Parcels.md"] and "Factory habits.md" in paths, paths
    assert receipt.candidates[2].line == 7, receipt.candidates[2]


def test_the_line_shown_holds_a_word_where_a_word_starts_not_inside_another(tmp_path: Path) -> None:
    """A first-hour trial: "day" inside "Monday" made the handoff line (line 7) tie the line that
    answers "who gets a day off after on-call" (line 9), and the first of them was shown."""
    vault = write(
        tmp_path,
        {
            "Runbooks/On-call rotation.md": "---\ntitle: On-call rotation\n---\n# On-call rotation\n\n"
            "On-call rotates weekly; the handoff is Monday at 10:00 Beijing time.\n"
            "Alerts page through PagerDuty and escalate after 15 minutes.\n"
            "The on-call person gets one day off after a week with night pages.\n",
            "Payments.md": PAYMENTS,
        },
    )
    with Router(vault) as router:
        receipt = router.decide("who gets a day off after on-call")
    assert receipt.top is not None and receipt.top.path == "Runbooks/On-call rotation.md"
    assert receipt.top.line == 8 and receipt.top.snippet.startswith("The on-call person gets one day off")


def test_a_latin_word_glued_to_chinese_text_is_on_its_line(tmp_path: Path) -> None:
    """A cold review: "用Redis" no longer counted as writing "redis" (a Han character before it was taken
    for a letter), and the maintainer's line was shown instead of the Redis one."""
    vault = write(
        tmp_path,
        {
            "cache.md": "# 会话缓存\n\n会话缓存的维护人是运维组的小王，有问题找他。\n生产环境会话缓存用Redis，过期时间30分钟。\n",
            "Payments.md": PAYMENTS,
        },
    )
    with Router(vault) as router:
        receipt = router.decide("会话缓存用的是Redis吗")
    assert receipt.top is not None and receipt.top.path == "cache.md"
    assert receipt.top.snippet.startswith("生产环境会话缓存用Redis")
