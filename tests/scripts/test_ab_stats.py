"""harmonize_tools.ab.stats, .library_stats, .per_call, .arrival, .tables and
.data_files: exact results on small inputs, merging of library reports, and the
text/CSV renderings (no matplotlib needed)."""
import csv
import io
import json
import math
from collections import Counter
from pathlib import Path

import pytest

# python/ is on sys.path: tests/conftest.py
from harmonize_tools.ab import arrival, data_files, interleaved, library_stats, per_call, stats, tables
from harmonize_tools.ab.parsing import Row

TESTS = Path(__file__).resolve().parents[1]
REPORTS = TESTS / "fixtures" / "reports"


def test_median_odd_even_and_empty():
    assert stats.median([3.0, 1.0, 2.0]) == 2.0
    assert stats.median([4.0, 1.0, 3.0, 2.0]) == 2.5
    assert stats.median([7.0]) == 7.0
    with pytest.raises(ValueError):
        stats.median([])


def test_quantile_matches_linear_interpolation():
    values = [1.0, 2.0, 3.0, 4.0, 5.0]
    assert stats.quantile(values, 0.0) == 1.0
    assert stats.quantile(values, 1.0) == 5.0
    assert stats.quantile(values, 0.5) == 3.0
    assert stats.quantile(values, 0.9) == pytest.approx(4.6)
    with pytest.raises(ValueError):
        stats.quantile(values, 1.5)


def test_summarize_spread_is_relative_half_range():
    summary = stats.summarize([1.0, 1.2, 1.1])
    assert summary["median"] == 1.1 and summary["min"] == 1.0 and summary["max"] == 1.2
    assert summary["spread"] == pytest.approx(0.1 / 1.1)
    assert summary["runs"] == 3


def test_compare_delta_and_noise():
    separated = stats.compare([2.0, 2.2, 2.1], [1.0, 1.1, 0.9])
    assert separated["delta"] == pytest.approx(2.1 / 1.0)
    assert separated["delta_low"] == pytest.approx(2.0 / 1.1)
    assert separated["delta_high"] == pytest.approx(2.2 / 0.9)
    assert separated["exceeds_noise"] is True
    overlapping = stats.compare([1.0, 1.3], [1.2, 1.4])
    assert overlapping["exceeds_noise"] is False
    single = stats.compare([2.0], [1.0])
    assert single["exceeds_noise"] is None  # one run cannot show noise
    assert stats.compare([1.0, 1.0], [0.0, 0.0])["delta"] == math.inf


def test_points_are_grouped_by_benchmark_processes_and_size():
    runs = [("A", [Row("allreduce", 4, 2.0, processes=2), Row("allreduce", 8, 3.0, processes=2)]),
            ("B", [Row("allreduce", 4, 1.0, processes=2), Row("allreduce", 8, 3.0, processes=2)]),
            ("A", [Row("allreduce", 4, 2.2, processes=2), Row("allreduce", 8, 3.3, processes=2)]),
            ("B", [Row("allreduce", 4, 1.1, processes=2), Row("allreduce", 8, 3.1, processes=2)])]
    points = stats.collect_points(runs)
    assert points[("allreduce", 2, 4)] == {"A": [2.0, 2.2], "B": [1.0, 1.1]}
    results = stats.aggregate_points(points, ["A", "B"])
    assert [r["size"] for r in results] == [4, 8]
    assert results[0]["comparison"]["delta"] == pytest.approx(2.1 / 1.05)
    assert results[0]["comparison"]["exceeds_noise"] is True
    assert results[1]["comparison"]["exceeds_noise"] is False


def test_min_metric_needs_full_format():
    with pytest.raises(ValueError, match="-f"):
        stats.collect_points([("A", [Row("allreduce", 4, 2.0)])], metric="min_us")


def load(mode):
    return [json.loads((REPORTS / f"{mode}-{run}.json").read_text()) for run in (1, 2, 3)]


def test_merge_reports_sums_counts_and_takes_medians():
    merged = library_stats.merge_reports(load("harmonize"))
    assert merged["runs"] == 3 and merged["mode"] == "harmonize"
    assert merged["clock"]["scheme"] == "h2hca"
    assert merged["clock"]["sync_seconds_total_median"] == pytest.approx(0.002)
    world = merged["communicators"]["MPI_COMM_WORLD"]
    assert world["calls"] == 3300 and world["harmonized_calls"] == 3300
    assert world["missed_calls_any"] == 0 + 1 + 2
    assert world["failure_rate"] == pytest.approx(3 / 3300)
    assert world["missed_events_per_rank"] == [3, 0]
    assert world["resyncs"] == 6
    assert world["resync_seconds"] == pytest.approx(0.0024)
    assert world["slack"]["final"] == pytest.approx(4e-5)  # median of 2e-5, 4e-5, 6e-5
    skew = world["exit_skew"]
    assert skew["count"] == 3300
    assert skew["p50"] == pytest.approx(3e-7 * 0.05 * 2)
    assert skew["max_of_runs"] == pytest.approx(2e-5 * 0.05 * 3)
    assert len(skew["per_run"]) == 3
    assert world["truth_exit_skew"] is None
    # Two runs missed nothing: only the runs with samples count.
    assert world["lateness"]["count"] == 1 + 2


def test_observe_reports_have_no_harmonized_calls():
    world = library_stats.merge_reports(load("observe"))["communicators"]["MPI_COMM_WORLD"]
    assert world["harmonized_calls"] == 0 and world["calls"] == 3300
    assert world["wait"] is None
    assert world["failure_rate"] == 0.0


def summary_for_tables():
    points = stats.collect_points([("A", [Row("allreduce", 4, 2.0, processes=2)]),
                                   ("B", [Row("allreduce", 4, 1.0, processes=2)]),
                                   ("A", [Row("allreduce", 4, 2.4, processes=2)]),
                                   ("B", [Row("allreduce", 4, 1.2, processes=2)])])
    return {"command_text": "mpiexec -n 2 bench", "sides": ["A", "B"],
            "modes": {"A": "observe", "B": "harmonize"}, "metric": "avg", "comparison_pair": ["A", "B"],
            "ok_runs": {"A": 2, "B": 2}, "results": stats.aggregate_points(points, ["A", "B"]),
            "library": {"A": library_stats.merge_reports(load("observe")),
                        "B": library_stats.merge_reports(load("harmonize"))},
            "failed_runs": [{"id": "002-B", "errors": ["command exited with status 1 (see stderr.txt)"],
                             "log": "/out/runs/002-B"}]}


def test_terminal_report_contents():
    text = tables.terminal_report(summary_for_tables())
    assert "allreduce, 2 processes" in text
    row = next(line for line in text.splitlines() if line.strip().startswith("4 "))
    assert row.split()[:8] == ["4", "2.20", "9.1%", "2", "1.10", "9.1%", "2", "2.000"]
    assert "yes" in row  # [2.0, 2.4] vs [1.0, 1.2] do not overlap
    assert "B harmonize  MPI_COMM_WORLD" in text
    assert "1 run(s) failed" in text and "002-B: command exited with status 1" in text


def test_csv_outputs():
    summary = summary_for_tables()
    rows = list(csv.DictReader(io.StringIO(data_files.results_csv(summary))))
    assert len(rows) == 1
    assert rows[0]["A_median_us"] == "2.2" and rows[0]["B_median_us"] == "1.1"
    assert float(rows[0]["delta"]) == pytest.approx(2.0) and rows[0]["exceeds_noise"] == "true"
    library = list(csv.DictReader(io.StringIO(data_files.library_csv(summary))))
    assert [r["side"] for r in library] == ["A", "B"]
    assert library[1]["harmonized_calls"] == "3300"
    assert float(library[0]["exit_skew_p50"]) == pytest.approx(6e-7)


def test_human_seconds():
    assert tables.human_seconds(1.5e-7) == "150 ns"
    assert tables.human_seconds(2.5e-5) == "25 us"
    assert tables.human_seconds(0.0012) == "1.2 ms"
    assert tables.human_seconds(None) == "-"
    assert tables.human_seconds(0) == "0"


@pytest.mark.parametrize("command, expected", [
    (["mpiexec", "-n", "4", "./osu_allreduce"], 4),
    (["mpirun", "--oversubscribe", "-np", "8", "--bind-to", "none", "./a"], 8),
    (["srun", "--ntasks=16", "./a"], 16),
    (["mpiexec", "--host", "a,b", "./a", "-n", "3"], None),  # -n of the program, not the launcher
    (["mpiexec", "./a", "-n", "3"], None),  # ditto, the program right after the launcher
    (["./osu_allreduce", "-f"], 1),  # singleton
])
def test_processes_from_command(command, expected):
    from harmonize_tools.ab.results import processes_from_command
    assert processes_from_command(command) == expected


def collective_report(local_p50, t_global_p50, skew_p50, calls=1000, valid=0):
    key = {"operation": "allreduce", "bytes": 8, "root": None, "calls": calls,
           "valid_calls": valid, "local": {"p50": local_p50}, "t_global": {"p50": t_global_p50},
           "arrival_skew": {"p50": skew_p50}}
    return {"communicators": [{"name": "MPI_COMM_WORLD", "collectives": {"keys": [key]}}]}


def test_the_collective_itself_is_compared_per_call():
    a = [collective_report(6e-6, 7e-6, 1e-6), collective_report(6.4e-6, 7.2e-6, 1.2e-6),
         collective_report(6.2e-6, 7.1e-6, 0.9e-6)]
    b = [collective_report(5e-6, 5.2e-6, 2e-8, valid=990), collective_report(5.1e-6, 5.3e-6, 3e-8, valid=995),
         collective_report(4.9e-6, 5.1e-6, 1e-8, valid=985)]
    rows = per_call.compare_collectives({"A": per_call.collective_points(a), "B": per_call.collective_points(b)},
                                        ("A", "B"))
    assert len(rows) == 1
    row = rows[0]
    assert (row["communicator"], row["operation"], row["bytes"], row["root"]) == \
        ("MPI_COMM_WORLD", "allreduce", 8, None)
    assert row["sides"]["A"]["local"] == 6.2e-6  # the median of the runs' medians
    assert row["sides"]["B"]["valid_calls"] == 2970 and row["sides"]["B"]["calls"] == 3000
    local = row["comparison"]["local"]
    assert local["delta"] == pytest.approx(6.2 / 5.0)
    assert local["delta_low"] == pytest.approx(6.0 / 5.1)
    assert local["exceeds_noise"] is True
    assert row["comparison"]["t_global"]["delta"] == pytest.approx(7.1 / 5.2)
    assert row["sides"]["B"]["arrival_skew"] == 2e-8
    summary = {"comparison_pair": ["A", "B"], "collectives": rows}
    text = tables.collectives_table(summary)
    # Without histograms (older reports) only the runs' range is given.
    assert "the collective itself" in text and "99%" in text and "1.18-1.31" in text
    assert row["pooled"]["local"] is None


def test_keys_one_side_lacks_are_left_out():
    only_a = {"A": per_call.collective_points([collective_report(1e-6, 1e-6, 0)]), "B": {}}
    assert per_call.compare_collectives(only_a, ("A", "B")) == []
    assert tables.collectives_table({"comparison_pair": ["A", "B"], "collectives": []}) == ""


def test_collectives_csv_has_a_row_per_key():
    a = [collective_report(6e-6, 7e-6, 1e-6)]
    b = [collective_report(5e-6, 5.2e-6, 2e-8, valid=990)]
    rows = per_call.compare_collectives({"A": per_call.collective_points(a), "B": per_call.collective_points(b)},
                                        ("A", "B"))
    lines = list(csv.DictReader(io.StringIO(data_files.collectives_csv(
        {"comparison_pair": ["A", "B"], "collectives": rows}))))
    assert len(lines) == 1
    assert lines[0]["operation"] == "allreduce" and lines[0]["root"] == ""
    assert lines[0]["delta_local"] == ""  # no histograms in these reports
    assert float(lines[0]["delta_local_runs_low"]) == pytest.approx(1.2)
    assert lines[0]["delta_local_exceeds_noise"] == ""  # one run a side: too few to say


def histogram_of(values, min_exponent=-31, sub_buckets=64):
    """The library's histogram of `values` (docs/report.md), positive values only."""
    indices = []
    for value in values:
        mantissa, exponent = math.frexp(value)
        indices.append((exponent - min_exponent) * sub_buckets + int((2 * mantissa - 1) * sub_buckets))
    first = min(indices)
    counts = [0] * (max(indices) - first + 1)
    for index in indices:
        counts[index - first] += 1
    return {"min_exponent": min_exponent, "sub_buckets": sub_buckets, "first": first,
            "counts": counts, "below": 0, "above": 0}


def test_pooled_calls_give_the_median_and_an_interval():
    # Two runs of 1000 calls each side: A spread over 5.5-6.5 us, B over 4.5-5.5 us.
    a_calls = [5.5e-6 + 1e-6 * i / 999 for i in range(1000)]
    b_calls = [4.5e-6 + 1e-6 * i / 999 for i in range(1000)]
    pool = per_call.pool_histograms(None, histogram_of(a_calls))
    pool = per_call.pool_histograms(pool, histogram_of(a_calls))
    low, middle, high = per_call.pooled_median(pool)
    assert middle == pytest.approx(6.0e-6, rel=0.01)
    # 2000 calls: ranks 1000 -+ 44, i.e. -+ 22 us / 1000 of the 1 us spread.
    assert low == pytest.approx(5.956e-6, rel=0.01) and high == pytest.approx(6.044e-6, rel=0.01)
    b_pool = per_call.pool_histograms(None, histogram_of(b_calls))
    compared = per_call.compare_pooled(pool, b_pool)
    assert compared["delta"] == pytest.approx(1.2, rel=0.02)
    assert compared["delta_low"] < compared["delta"] < compared["delta_high"]
    assert compared["decided"]
    # The same calls on both sides: the interval holds 1.
    assert not per_call.compare_pooled(pool, pool)["decided"]
    assert per_call.pooled_median(None) is None


def test_reports_with_histograms_are_pooled_per_key():
    report = collective_report(6e-6, 7e-6, 1e-6)
    report["communicators"][0]["collectives"]["keys"][0]["local"]["histogram"] = \
        histogram_of([6e-6] * 500)
    points = per_call.collective_points([report, report])
    pool = points[("MPI_COMM_WORLD", "allreduce", 8, None)]["local_pool"]
    assert sum(pool["counts"].values()) == 1000
    assert points[("MPI_COMM_WORLD", "allreduce", 8, None)]["t_global_pool"] is None


# ------------------------------------------------------------------ late arrivals (paper 002)

U = 2.0 ** -20  # about 1 us: sums and differences of small multiples are exact


def test_overlap_benefit_is_paper_002_eq_5():
    assert arrival.overlap_benefit(10 * U, 12 * U, 5 * U) == 0.25  # (10 + 5 - 12) / 12
    assert arrival.overlap_benefit(10 * U, 10 * U, 5 * U) == 0.5  # half the delay hidden
    assert arrival.overlap_benefit(10 * U, 15 * U, 5 * U) == 0.0  # the delay simply adds
    assert arrival.overlap_benefit(10 * U, 20 * U, 5 * U) == -0.25  # it costs extra
    assert arrival.overlap_benefit(10e-6, 12e-6, 5e-6) == (10e-6 + 5e-6 - 12e-6) / 12e-6


def test_overlap_benefit_interval_pairs_the_ends_crosswise():
    # b grows with t0 and shrinks with t_delta.
    low, high = arrival.overlap_benefit_interval((9 * U, 11 * U), (11 * U, 13 * U), 5 * U)
    assert low == 1 / 13 and high == 5 / 11
    assert arrival.overlap_benefit_interval((9 * U, 11 * U), (0.0, 13 * U), 5 * U) is None


def arrival_report(t_global, valid=900, arrival=None, error=None):
    """One key's report with its valid calls' t_global all in one bucket."""
    valid_figures = {}
    if valid:
        valid_figures["t_global"] = {"p50": t_global, "histogram": histogram_of([t_global] * valid)}
        valid_figures["arrival_skew"] = {"p50": 0.0, "histogram": {**histogram_of([1e-6]), "counts": [],
                                                                   "below": valid}}
    if valid and error is not None:
        valid_figures["arrival_error"] = {"p50": error, "histogram": histogram_of([error] * valid)}
    key = {"operation": "allreduce", "bytes": 8, "root": None, "calls": 1000, "valid_calls": valid,
           "t_global": {"p50": t_global}, "local": {"p50": t_global}, "arrival_skew": {"p50": 0.0},
           "valid": valid_figures}
    report = {"communicators": [{"name": "MPI_COMM_WORLD", "collectives": {"keys": [key]}}]}
    if arrival is not None:
        report["arrival"] = arrival
    return report


def bucket_of(value):
    """(low, midpoint, high) of the library's histogram bucket holding `value`."""
    mantissa, exponent = math.frexp(value)
    sub = int((2 * mantissa - 1) * 64)
    return tuple(math.ldexp(1 + (sub + where) / 64, exponent - 1) for where in (0.0, 0.5, 1.0))


def test_side_arrival_prefers_the_report_then_the_setting():
    reported = arrival_report(1e-5, arrival={"pattern": "rank:0:5us", "delta": 5e-06})
    assert arrival.side_arrival("harmonize", [reported], ["ARRIVAL=rank:0:7us"]) == ("rank:0:5us", 5e-06, "report")
    older = arrival_report(1e-5)  # no "arrival": a library from before HARMONIZE_ARRIVAL
    assert arrival.side_arrival("harmonize", [older], ["HARMONIZE_ARRIVAL=rank:0:7us"]) == \
        ("rank:0:7us", 7e-06, "setting")
    assert arrival.side_arrival("harmonize", [dict(older, arrival=None)], []) == ("none", 0.0, "setting")
    assert arrival.side_arrival("harmonize", [], ["ARRIVAL=file:/tmp/x"]) == ("file:/tmp/x", None, "setting")
    # Patterns are imposed in mode harmonize only.
    assert arrival.side_arrival("observe", [reported], ["ARRIVAL=rank:0:5us"]) == (None, None, None)


def test_t0_is_the_first_harmonize_side_without_delay():
    arrivals = {"ref": (None, None, None), "late": ("rank:0:5us", 5e-6, "report"),
                "t0": ("none", 0.0, "report"), "zero": ("rank:0:0us", 0.0, "report")}
    assert arrival.choose_t0(list(arrivals), arrivals) == ("t0", None)
    assert arrival.choose_t0(list(arrivals), arrivals, "zero") == ("zero", None)
    side, note = arrival.choose_t0(list(arrivals), arrivals, "late")
    assert side is None and "--t0 late" in note and "b not computed" in note
    side, note = arrival.choose_t0(["ref", "late"], arrivals)
    assert side is None and "no harmonize side without delay" in note


def test_arrival_rows_give_b_of_the_valid_calls():
    t0, late = 10e-6, 12e-6
    points = {"t0": per_call.collective_points([arrival_report(t0, error=5e-8)] * 2),
              "late": per_call.collective_points([arrival_report(late)]),
              "ref": per_call.collective_points([arrival_report(30e-6, valid=0)])}
    arrivals = {"ref": (None, None, None), "late": ("rank:0:5us", 5e-6, "report"), "t0": ("none", 0.0, "report")}
    summary = arrival.arrival_summary(points, ["ref", "late", "t0"], arrivals)
    assert summary["applies"] and summary["t0_side"] == "t0" and summary["note"] is None
    rows = summary["rows"]
    assert [r["side"] for r in rows] == ["t0", "late"]  # by delta; observe has no pattern
    zero, delayed = rows
    assert zero["is_t0"] and zero["b"] is None and zero["valid_calls"] == 1800
    low0, mid0, high0 = bucket_of(t0)
    low, mid, high = bucket_of(late)
    assert (zero["t_global_low"], zero["t_global"], zero["t_global_high"]) == (low0, mid0, high0)
    assert delayed["b"] == (mid0 + 5e-6 - mid) / mid
    assert (delayed["b_low"], delayed["b_high"]) == ((low0 + 5e-6 - high) / high, (high0 + 5e-6 - low) / low)
    assert zero["arrival_skew"] == 0.0 and zero["arrival_error"] == bucket_of(5e-8)[1]
    assert delayed["arrival_error"] is None  # older reports lack it
    # Without a pattern other than none there is nothing to show.
    plain = {"t0": ("none", 0.0, "setting"), "ref": (None, None, None)}
    assert not arrival.arrival_summary(points, ["ref", "t0"], plain)["applies"]


# ------------------------------------------------------------------ issue 25, D7: wide numbers

@pytest.mark.parametrize("value, decimals, text", [
    (12.3456, 2, "12.35"), (1234.5, 2, "1234.50"), (1e308, 2, "1.00e+308"), (-1e308, 3, "-1.00e+308"),
    (123456789.0, 2, "1.23e+08"), (1234567.0, 2, "1234567.00"), (math.inf, 2, "inf"), (0.0, 3, "0.000"),
])
def test_numbers_fit_their_column(value, decimals, text):
    assert tables.fit_number(value, decimals) == text


def test_a_huge_latency_does_not_break_the_table():
    points = stats.collect_points([("A", [Row("allreduce", 4, 1e308), Row("allreduce", 8, 2.0)]),
                                   ("B", [Row("allreduce", 4, 1.0), Row("allreduce", 8, 1e-300)])])
    summary = {"sides": ["A", "B"], "modes": {"A": "observe", "B": "harmonize"}, "metric": "avg",
               "comparison_pair": ["A", "B"], "results": stats.aggregate_points(points, ["A", "B"])}
    text = tables.results_table(summary)
    assert max(len(line) for line in text.splitlines()) < 120, text
    row = next(line.split() for line in text.splitlines() if line.split()[:1] == ["4"])
    assert row[1] == "1.00e+308" and row[7] == "1.00e+308"  # A's median; delta
    row = next(line.split() for line in text.splitlines() if line.split()[:1] == ["8"])
    assert row[4] == "0.00" and row[7] == "2.00e+300"  # B's 1e-300 us; delta


# ------------------------------------------------------------------ issue 25: runs, not calls

V = 5e-6  # seconds


def bucket_edges(value):
    """(low, midpoint, high) of the library's histogram bucket holding `value`."""
    mantissa, exponent = math.frexp(value)
    sub = int((2 * mantissa - 1) * 64)
    return tuple(math.ldexp(1 + (sub + where) / 64, exponent - 1) for where in (0.0, 0.5, 1.0))


def run_pool(*calls):
    """One run's pool of (value, count) calls."""
    return per_call.pool_histograms(None, histogram_of([v for value, count in calls for v in [value] * count]))


def test_runs_that_agree_keep_the_calls_interval():
    a = [run_pool((1.5 * V, 1000))] * 3
    b = [run_pool((V, 1000))] * 3
    result = per_call.compare_runs(a, b)
    (a_low, a_mid, a_high), (b_low, b_mid, b_high) = bucket_edges(1.5 * V), bucket_edges(V)
    # Every resample is the same: the bootstrap adds nothing to the calls' interval.
    assert (result["delta"], result["delta_low"], result["delta_high"]) == (a_mid / b_mid, a_low / b_high,
                                                                            a_high / b_low)
    assert result["decided"] and result["reason"] is None and result["runs"] == [3, 3]
    assert per_call.compare_runs(a, b) == result  # a fixed seed: the same runs, the same interval


def test_one_disturbed_run_widens_the_interval_to_the_clean_runs():
    # Side A is B plus one disturbed run, all of whose calls took 1.5 V: the
    # pooled median of A's 3000 calls moves to 1.5 V and the calls alone
    # "decide" delta = 1.5 with a narrow interval, though A's clean runs
    # are B's. Resamples without the disturbed run (8/27 of them) give
    # delta = 1 exactly: the interval reaches 1 and nothing is decided.
    clean = run_pool((V, 600), (1.5 * V, 400))
    a, b = [clean, clean, run_pool((1.5 * V, 1000))], [clean] * 3
    (a_low, a_mid, a_high), (b_low, b_mid, b_high) = bucket_edges(1.5 * V), bucket_edges(V)
    calls = per_call.compare_pooled(per_call.pool_runs(a), per_call.pool_runs(b))
    assert calls["decided"] and calls["delta_low"] == a_low / b_high > 1.4  # the old verdict
    result = per_call.compare_runs(a, b)
    assert result["delta"] == a_mid / b_mid and (result["calls_low"], result["calls_high"]) == \
        (a_low / b_high, a_high / b_low)
    assert (result["delta_low"], result["delta_high"]) == (1.0, a_high / b_low)
    assert not result["decided"] and result["reason"] == "runs disagree"


def test_too_few_runs_decide_nothing():
    result = per_call.compare_runs([run_pool((2 * V, 1000))] * 2, [run_pool((V, 1000))] * 5)
    assert result["delta_low"] > 1.9 and not result["decided"] and result["reason"] == "too few runs"


def test_an_interval_holding_1_says_so():
    same = [run_pool((V, 500), (1.01 * V, 500))] * 3
    result = per_call.compare_runs(same, same)
    assert result["delta"] == 1.0 and result["delta_low"] < 1.0 < result["delta_high"]
    assert not result["decided"] and result["reason"] == "interval holds 1"
    assert per_call.compare_runs([], same) is None


def test_resampled_medians_are_the_pooled_medians():
    runs = [run_pool((V, 300), (2 * V, 100)), run_pool((3 * V, 500)), run_pool((V, 10))]
    side = per_call.RunsMedian(runs)
    for weights in ({0: 1}, {1: 2}, {0: 1, 1: 1}, {0: 2, 2: 1}, {0: 1, 1: 1, 2: 1}):
        pool = None
        for run, times in weights.items():
            for _ in range(times):
                pool = per_call.pool_histograms(pool, histogram_of([v for v, c in (
                    [(V, 300), (2 * V, 100)], [(3 * V, 500)], [(V, 10)])[run] for v in [v] * c]))
        assert side.median(Counter(weights)) == per_call.pooled_median(pool)[1], weights


def test_percentile_interval_takes_the_wider_order_statistics():
    assert per_call.percentile_interval(list(range(41))) == (1, 39)  # 0.025 * 40 = 1, 0.975 * 40 = 39
    assert per_call.percentile_interval(list(range(11))) == (0, 10)  # 0.25 and 9.75: outwards
    assert per_call.percentile_interval([7.0]) == (7.0, 7.0)


def test_worst_ranks_of_large_communicators_are_pooled():
    """Above 1 024 ranks the reports name the worst ranks, not every rank."""
    def comm(worst):
        return {"name": "MPI_COMM_WORLD", "size": 2048, "kind": "intra", "calls": 10,
                "harmonized_calls": 10, "missed_calls_any": 1, "late_calls_any": 0,
                "missed_events_worst_ranks": {"ranks_with_events": len(worst), "worst": worst}}
    merged = library_stats._merge_communicator([comm([[7, 3], [2, 1]]), comm([[2, 4]])])
    assert merged["missed_events_worst_ranks"] == {"ranks_with_events": 2, "worst": [[2, 5], [7, 3]]}
    assert merged["missed_events_per_rank"] == []
    assert "late_events_worst_ranks" not in merged


def test_interleaved_runs_agree_only_when_every_run_decides_the_same_way():
    def run(*rows):
        return {"comparisons": [{"communicator": "MPI_COMM_WORLD", "operation": "allreduce", "bytes": size,
                                 "root": -1, "side": "B", "figure": "t_global", "delta": delta,
                                 "decided": decided} for size, delta, decided in rows]}

    runs = [run((4, 2e-6, True), (8, 1e-8, True), (16, 1e-8, False), (32, -3e-6, True)),
            run((4, 1e-6, True), (8, -2e-8, True), (16, 2e-8, True), (32, -1e-6, True)),
            run((4, 3e-6, True), (8, 1e-8, False), (16, 1e-8, True), (32, -2e-6, True))]
    verdicts = {row["bytes"]: row for row in interleaved.across_runs(runs)}
    assert verdicts[4]["verdict"] == "higher in every run"
    assert verdicts[4]["median_delta"] == 2e-6
    assert verdicts[4]["signs"] == [1, 1, 1]
    assert verdicts[8]["verdict"] == "runs disagree"
    assert verdicts[8]["signs"] == [1, -1, 0]
    assert verdicts[16]["verdict"] == "not decided in every run"
    assert verdicts[32]["verdict"] == "lower in every run"


def test_interleaved_sides_pass_what_the_library_switches_per_call():
    modes = {"A": "observe", "B": "harmonize", "rd": "harmonize"}
    settings = {"rd": ["MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling",
                       "HARMONIZE_ARRIVAL=rank:0:10us"]}
    assert interleaved.interleave_value(["A", "rd"], modes, settings, {}) == \
        "A:MODE=observe;rd:MODE=harmonize,ALLREDUCE=recursive_doubling,ARRIVAL=rank:0:10us"
    ompi = {"rd": ["OMPI_MCA_coll_tuned_bcast_algorithm=chain"]}
    sides, _, folded = interleaved.fold_sides(["A", "rd"], modes, ompi, {})
    assert folded["interleaved"] == ["HARMONIZE_INTERLEAVE=A:MODE=observe;rd:MODE=harmonize,BCAST=chain",
                                     "OMPI_MCA_coll_tuned_use_dynamic_rules=1"]
    with pytest.raises(ValueError, match="which the library cannot switch per call"):
        interleaved.interleave_value(["A", "rd"], modes, {"rd": ["MPIR_CVAR_ASYNC_PROGRESS=1"]}, {})
