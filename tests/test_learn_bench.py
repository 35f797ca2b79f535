"""The learner bench with its scripted model, on the dev vault: learning helps and teaches no wrong page."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "bench" / "memory_honesty"
sys.path.insert(0, str(BENCH))

import learn_bench  # noqa: E402


def test_scripted_learner_run_on_dev_vault() -> None:
    folder, pairs_file, questions_file = learn_bench.SETS["dev"]
    pairs = learn_bench.load_pairs(BENCH / pairs_file)
    refuse = learn_bench.load_refuse(BENCH / questions_file)
    # Written at once (pending_triggers = "none"): the learner's own checks and write path.
    res = learn_bench.run_set(BENCH / folder, pairs, refuse, "scripted", "scripted", pending_mode="none")
    assert res["learned"] > 0
    assert res["learned_wrong_page"] == 0
    before, after = res["week2_before"], res["week2_after"]
    assert after["right"] >= before["right"]
    assert after["wrong"] <= before["wrong"]
    assert after["neighbours_refused"] >= before["neighbours_refused"]


def test_best_sentence_is_a_sentence_from_the_page() -> None:
    body = "# Title\n\n- Weekly shifts, handoff **Monday 10:00 CET**\n- See api.example.com for more.\n"
    quote = learn_bench.best_sentence(body, "When is the weekly handoff?")
    assert quote == "Weekly shifts, handoff **Monday 10:00 CET**"


def test_a_model_that_always_takes_the_first_candidate_teaches_nothing() -> None:
    # Week 1 holds the vault's neighbour questions too; a model that always names the first listed
    # candidate would teach them to the wrong pages if its picks were not asked for twice, reordered.
    folder, pairs_file, questions_file = learn_bench.SETS["dev"]
    pairs = learn_bench.load_pairs(BENCH / pairs_file)
    refuse = learn_bench.load_refuse(BENCH / questions_file)
    res = learn_bench.run_set(BENCH / folder, pairs, refuse, "careless", "careless")
    assert res["learned_wrong_page"] == 0 and res["learned_neighbours"] == 0
    assert res["week2_after"]["neighbours_refused"] == res["week2_before"]["neighbours_refused"]


def test_agent_lane_honest_teaches_no_wrong_page_and_careless_is_bounded() -> None:
    from krouter import config

    folder, _pairs, questions_file = learn_bench.SETS["dev"]
    pairs = learn_bench.load_pairs(BENCH / learn_bench.DISTANT["dev"])
    refuse = learn_bench.load_refuse(BENCH / questions_file)
    assert max(learn_bench.content_overlap(p) for p in pairs) <= 0.5
    honest = learn_bench.run_agent_set(BENCH / folder, pairs, refuse, "honest", {}, pending_mode="none")
    assert honest["taught"] > 0 and honest["taught_wrong_page"] == 0
    assert honest["week2_after"]["neighbours_refused"] == honest["week2_before"]["neighbours_refused"]
    careless = learn_bench.run_agent_set(BENCH / folder, pairs, refuse, "careless", {}, pending_mode="none")
    # Whatever a careless agent teaches is counted, and no more than the daily cap per vault.
    assert careless["taught_wrong_page"] <= careless["taught"] <= config.Config.teach_daily_cap


def test_one_teacher_alone_writes_nothing_and_a_second_source_writes_what_both_name() -> None:
    # As shipped (pending_triggers = "all"): a careless agent's picks and a plausible-but-wrong model's
    # are held, so no neighbour question becomes citeable; an honest agent's picks that the gold-picking
    # model also names are written, none on a wrong page (docs/decisions.md D50).
    folder, _pairs, questions_file = learn_bench.SETS["dev"]
    pairs = learn_bench.load_pairs(BENCH / learn_bench.DISTANT["dev"])
    refuse = learn_bench.load_refuse(BENCH / questions_file)
    careless = learn_bench.run_agent_set(BENCH / folder, pairs, refuse, "careless", {})
    assert careless["taught"] == 0 and careless["written"] == 0 and careless["held_neighbours"] > 0
    assert careless["week2_after"] == careless["week2_before"]
    lexical = learn_bench.run_set(BENCH / folder, pairs, refuse, "lexical", "lexical")
    assert lexical["learned"] == 0 and lexical["held_neighbours"] > 0
    assert lexical["week2_after"]["neighbours_refused"] == lexical["week2_before"]["neighbours_refused"]
    both = learn_bench.run_agent_set(BENCH / folder, pairs, refuse, "honest", {}, confirm_with="scripted")
    assert both["confirmed"] > 0 and both["written"] >= both["confirmed"] and both["written_wrong_page"] == 0
    assert both["week2_after"]["neighbours_refused"] == both["week2_before"]["neighbours_refused"]


def test_every_pairs_file_names_a_current_page_of_its_vault() -> None:
    """A pair whose gold page is missing or replaced would score a right answer as wrong."""
    from krouter.vault.page import parse_page

    for name, (folder, dev_pairs, _questions) in learn_bench.SETS.items():
        files = {dev_pairs, learn_bench.MID[name], learn_bench.EVERYDAY[name]}
        if name in learn_bench.DISTANT:
            files.add(learn_bench.DISTANT[name])
        for pairs_file in sorted(files):
            for pair in learn_bench.load_pairs(BENCH / pairs_file):
                page = BENCH / folder / pair.gold
                assert page.is_file(), f"{pairs_file} {pair.id}: {pair.gold} is not in {folder}"
                parsed = parse_page(pair.gold, page.read_text(encoding="utf-8"))
                assert not parsed.replaced, f"{pairs_file} {pair.id}: {pair.gold} is replaced"
                assert pair.week1.strip() != pair.week2.strip(), f"{pairs_file} {pair.id}: one wording"
