"""harmonize-ab --interleave --until-decided's rule (ab/sequential.py):
the sign test pooled over runs, exactly; its level under repeated looks,
on simulated A/A sequences; that it decides a real difference."""
import random

import pytest

# python/ is on sys.path: tests/conftest.py
from harmonize_tools.ab import plan, sequential


@pytest.mark.parametrize("positive, negative, p", [
    (0, 0, 1.0),
    (5, 0, 2 / 32),
    (0, 10, 2 / 1024),
    (1, 9, 2 * (1 + 10) / 1024),
    (3, 3, 1.0),  # 2 P(B <= 3) > 1
    (4, 6, 2 * (1 + 10 + 45 + 120 + 210) / 1024),
])
def test_the_sign_test_is_exact(positive, negative, p):
    assert sequential.sign_test_p(positive, negative) == pytest.approx(p, rel=1e-12)


def test_a_long_run_s_tail_is_tiny_not_zero():
    # 10 000 blocks, 5 300 above: about 2e-9, summed in log space.
    p = sequential.sign_test_p(5300, 4700)
    assert 1e-10 < p < 1e-8


def test_the_runs_spread_is_their_counts_variance_about_each_comparison_s_mean():
    # One comparison: runs at z = +2 and -2 (100 blocks: 60/40, 40/60), about
    # a mean of 0: (4 + 4) / 1. Another with one run only adds nothing.
    assert sequential.standardized(60, 40) == pytest.approx(2.0)
    assert sequential.dispersion([[(60, 40), (40, 60)], [(70, 30)]]) == pytest.approx(8.0)
    # Runs that agree spread less than the coin: the coin's variance stands.
    assert sequential.dispersion([[(60, 40), (60, 40)]]) == 1.0
    assert sequential.dispersion([[(60, 40)]]) == 1.0
    assert sequential.dispersion([[(0, 0), (60, 40)]]) == 1.0  # a run without blocks is not a run here


def test_a_wide_spread_makes_the_pooled_test_more_careful():
    assert sequential.pooled_p(60, 40, 1.0) == sequential.sign_test_p(60, 40)
    # z = 2 with the variance 4 times the coin's: the normal tail at z = 1.
    assert sequential.pooled_p(60, 40, 4.0) == pytest.approx(0.3173105, rel=1e-6)
    assert sequential.pooled_p(60, 40, 1.01) >= sequential.sign_test_p(60, 40)


def test_runs_that_disagree_are_not_pooled_into_a_decision():
    # Two runs leaning hard opposite ways at one size, two quiet sizes: the
    # pooled count alone (about 1 000 above of 1 800) would decide; the runs'
    # spread says they do not agree.
    runs = [comparisons((8, "t_global", 1e-6, 700, 300), (16, "t_global", 0.0, 500, 500),
                        (32, "t_global", 0.0, 505, 495)),
            comparisons((8, "t_global", -1e-6, 300, 500), (16, "t_global", 0.0, 498, 502),
                        (32, "t_global", 0.0, 500, 500))]
    rows = {row["bytes"]: row for row in sequential.pooled_verdicts(runs, max_looks=2)}
    assert sequential.sign_test_p(1000, 800) < 0.05 / (3 * 2)
    assert rows[8]["dispersion"] > 10
    assert rows[8]["decided_at"] == 1  # the first run alone decided it, exactly
    assert rows[8]["verdict"] == "higher"


def comparisons(*rows):
    return {"comparisons": [{"communicator": "MPI_COMM_WORLD", "operation": "allreduce", "bytes": size,
                             "root": -1, "side": "B", "figure": figure, "delta": delta,
                             "positive_blocks": positive, "negative_blocks": negative}
                            for size, figure, delta, positive, negative in rows]}


def test_runs_pool_their_blocks_and_a_decision_is_kept_from_its_look():
    # Runs that agree (each size's counts alike in every run: the coin's
    # spread), size 16 missing in run 3.
    runs = [comparisons((8, "t_global", 1e-6, 35, 15), (16, "t_global", -1e-6, 20, 30)),
            comparisons((8, "t_global", 2e-6, 35, 15), (16, "t_global", 0.0, 20, 30)),
            comparisons((8, "t_global", 0.0, 35, 15))]
    rows = {row["bytes"]: row for row in sequential.pooled_verdicts(runs, max_looks=4)}
    assert rows[8]["level_each"] == pytest.approx(0.05 / (2 * 4))
    assert rows[8]["dispersion"] == 1.0
    assert (rows[8]["positive_blocks"], rows[8]["negative_blocks"]) == (105, 45)
    assert rows[8]["p"] == pytest.approx(sequential.sign_test_p(105, 45))
    # After run 1, 35/15 is p 0.0066 > 0.05 / 8: not decided; after run 2, 70/30 is.
    assert rows[8]["decided_at"] == 2 and rows[8]["verdict"] == "higher"
    assert rows[8]["deltas"] == [1e-6, 2e-6, 0.0] and rows[8]["median_delta"] == 1e-6
    assert (rows[16]["positive_blocks"], rows[16]["negative_blocks"]) == (40, 60)
    assert rows[16]["decided_at"] is None and rows[16]["verdict"] == "undecided"
    assert rows[16]["deltas"] == [-1e-6, 0.0, None]
    assert sequential.open_rows(list(rows.values()), "t_global") == [
        {"size": "MPI_COMM_WORLD allreduce 16 B, side B",
         "reason": f"40 blocks above, 60 below (p {rows[16]['p']:.2g} > {0.05 / 8:.2g})"}]
    assert sequential.open_rows(list(rows.values()), "local") == []  # no local_max rows here


def test_undecided_rooted_comparisons_name_their_root():
    # Two bcast comparisons that differ only by root must read apart in the
    # list of what is left undecided; a report's -1 is no root at all.
    runs = [{"comparisons": [{"communicator": "MPI_COMM_WORLD", "operation": operation, "bytes": 8,
                              "root": root, "side": "B", "figure": "t_global", "delta": 0.0,
                              "positive_blocks": 50, "negative_blocks": 50}
                             for operation, root in (("bcast", 0), ("bcast", 1), ("allreduce", -1))]}]
    rows = sequential.pooled_verdicts(runs, max_looks=1)
    assert [row["size"] for row in sequential.open_rows(rows, "t_global")] == [
        "MPI_COMM_WORLD bcast 8 B, root 0, side B", "MPI_COMM_WORLD bcast 8 B, root 1, side B",
        "MPI_COMM_WORLD allreduce 8 B, side B"]


def test_a_report_without_sign_counts_is_said_not_silently_undecided():
    old = {"comparisons": [{"communicator": "MPI_COMM_WORLD", "operation": "allreduce", "bytes": 8, "root": -1,
                            "side": "B", "figure": "t_global", "delta": 1e-6}]}
    rows = sequential.pooled_verdicts([old, old], max_looks=2)
    assert rows[0]["uncounted_runs"] == 2 and rows[0]["decided_at"] is None
    assert "2 run(s) without sign counts" in sequential.open_rows(rows, "t_global")[0]["reason"]
    counted = comparisons((8, "t_global", 0.0, 50, 50))
    assert sequential.pooled_verdicts([counted], max_looks=1)[0]["uncounted_runs"] == 0


def test_a_resume_may_raise_the_looks_but_never_lower_them(tmp_path):
    # Looks 1..L at 5 % / (m x K) add up to at most 5 % only while L <= K.
    def interleaved_plan(looks):
        return {"version": 1, "command": ["prog"], "runs": 1, "sides": ["interleaved"],
                "modes": {"interleaved": "harmonize"}, "configs": {}, "settings": {}, "launcher_args": [],
                "library": None, "sequential_looks": looks}
    plan.prepare_directory(tmp_path, interleaved_plan(5), resume=False, aggregate_only=False)
    (tmp_path / "runs" / "001-interleaved").mkdir()
    assert plan.prepare_directory(tmp_path, interleaved_plan(3), resume=True,
                                  aggregate_only=False)["sequential_looks"] == 5
    assert plan.prepare_directory(tmp_path, interleaved_plan(8), resume=True,
                                  aggregate_only=False)["sequential_looks"] == 8


def simulated(seed, probability_above, looks, keys=8, blocks=150):
    """One sequence of `looks` interleaved runs whose blocks are each above
    zero with `probability_above`; the pooled rows after the last look."""
    draw = random.Random(seed)
    runs = []
    for _ in range(looks):
        rows = []
        for key in range(keys):
            positive = sum(draw.random() < probability_above for _ in range(blocks))
            rows.append((key, "t_global", 0.0, positive, blocks - positive))
        runs.append(comparisons(*rows))
    return sequential.pooled_verdicts(runs, max_looks=looks)


def test_looked_at_after_every_run_an_a_a_sequence_decides_within_its_level():
    # The null: every block's sign a fair coin. A sequence decides falsely
    # when any of its 8 comparisons decides at any of its 5 looks; the rule
    # keeps that at 5 % (Bonferroni: below it). A test repeated at 5 % per
    # look would be near 1 - 0.95^(8 x 5) here.
    sequences = 400
    false = sum(any(row["decided_at"] for row in simulated(seed, 0.5, looks=5)) for seed in range(sequences))
    assert false <= 0.05 * sequences, false


def test_a_real_difference_is_decided_and_the_right_way():
    # 60 % of the blocks above zero: a small shift, decided by the pooled
    # blocks of a few runs where one run of 150 blocks is not enough.
    decided_at = []
    for seed in range(40):
        rows = simulated(1000 + seed, 0.6, looks=5)
        assert all(row["verdict"] != "lower" for row in rows)
        decided_at += [row["decided_at"] for row in rows]
    assert sum(at is not None for at in decided_at) >= 0.9 * len(decided_at)
    assert sum(at == 1 for at in decided_at) < 0.5 * len(decided_at)
