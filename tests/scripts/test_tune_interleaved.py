"""harmonize-tune --interleave (issue 45): every algorithm a side of one
interleaved run, eight sides a run at the most, the choice from the pooled
blocks at one family-wise level; a crashing algorithm is failed alone. The
rule on made-up reports (pure), then end to end on the real library with
build/bin/harmonize-example (Open MPI: its allreduce and bcast algorithms)."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from conftest import BIN, LIBRARY, MPI_FLAVOR, SOURCE_DIR, clean_environment, mpiexec_command  # noqa: E402
from harmonize_tools.ab import sequential  # noqa: E402
from harmonize_tools.tune import decide as decide_module  # noqa: E402
from harmonize_tools.tune import interleaved, measure, rules  # noqa: E402

TUNE = SOURCE_DIR / "scripts" / "harmonize-tune"
EXAMPLE = BIN / "harmonize-example"
OMPI_INFO = TESTS / "fixtures" / "tune" / "ompi_info-4.1.4.txt"


# ------------------------------------------------------------------ the rule (pure)

def test_sides_go_in_runs_of_eight_each_led_by_the_default():
    bcast = [str(value) for value in range(10)]
    assert interleaved.side_groups(bcast, "0") == [["0", "1", "2", "3", "4", "5", "6", "7"], ["0", "8", "9"]]
    assert interleaved.side_groups(["auto", "a", "b"], "auto") == [["auto", "a", "b"]]
    assert interleaved.side_groups(["auto"], "auto") == [["auto"]]


def comparison(side, size, positive, negative, delta, communicator="MPI_COMM_WORLD", processes=4,
               baseline_calls=100, figure="t_global"):
    return {"communicator": communicator, "size": processes, "operation": "allreduce", "bytes": size,
            "root": -1, "side": side, "figure": figure, "positive_blocks": positive,
            "negative_blocks": negative, "delta": delta, "baseline_median": 10e-6, "baseline_calls": baseline_calls}


def test_the_choice_is_the_fastest_decided_algorithm_at_one_level_over_every_group():
    # Group 1: 3 faster at 8 B by 80/20 blocks, 4 faster still but only 56/44 (undecided);
    # 1 decidedly slower. Group 2: 8 a little faster at 8 B, undecided. The
    # local_max rows and a size outside --sizes do not enter the family.
    group1 = [{"comparisons": [comparison("3", 8, 20, 80, -5e-6), comparison("4", 8, 44, 56, -6e-6),
                               comparison("1", 8, 95, 5, 10e-6), comparison("3", 8, 0, 100, -1e-6, figure="local_max"),
                               comparison("3", 4096, 0, 100, -9e-6)]}]
    group2 = [{"comparisons": [comparison("8", 8, 45, 55, -1e-6)]}]
    rows = interleaved.decide([group1, group2], "allreduce", "0", ["0", "1", "3", "4", "8"], sizes=(4, 1024))
    assert len(rows) == 1
    row = rows[0]
    assert (row["processes"], row["bytes"], row["default_t_global"]) == (4, 8, 10e-6)
    # Four comparisons in the family: each at 5 % / 4.
    assert row["versus"]["3"]["p"] == pytest.approx(sequential.sign_test_p(20, 80))
    assert row["versus"]["3"]["decided"] and row["versus"]["3"]["delta"] == pytest.approx(0.5)
    assert not row["versus"]["4"]["decided"] and "44 blocks slower, 56 faster" in row["versus"]["4"]["reason"]
    assert row["versus"]["1"]["decided"] and row["versus"]["1"]["verdict"] == "higher"
    assert not row["versus"]["8"]["decided"]
    assert row["choice"] == "3" and not row["tie"] and row["failed"] == []
    # A count that one comparison alone would call (p 0.021 < 0.05) is not
    # decided among four (0.021 > 0.0125).
    lone = [{"comparisons": [comparison("3", 8, 38, 62, -1e-6)]}]
    assert interleaved.decide([lone], "allreduce", "0", ["0", "3"])[0]["choice"] == "3"
    quiet = [{"comparisons": [comparison(side, 8, 50, 50, 0.0) for side in ("4", "5", "6")]}]
    rows = interleaved.decide([lone, quiet], "allreduce", "0", ["0", "3", "4", "5", "6"])
    assert sequential.sign_test_p(38, 62) < 0.05 and not rows[0]["versus"]["3"]["decided"]
    assert rows[0]["choice"] == "0" and rows[0]["tie"]


def test_a_group_without_runs_fails_its_algorithms_and_the_others_decide():
    group1 = [{"comparisons": [comparison("3", 8, 20, 80, -5e-6)]}]
    rows = interleaved.decide([group1, []], "allreduce", "0", ["0", "3", "8", "9"])
    assert rows[0]["failed"] == ["8", "9"] and rows[0]["choice"] == "3"


def test_the_communicator_with_the_most_calls_is_the_one_tuned():
    # IMB: its own communicator holds the measured calls; a few on MPI_COMM_WORLD.
    runs = [{"comparisons": [comparison("3", 8, 50, 50, 0.0, communicator="MPI_COMM_WORLD", baseline_calls=5),
                             comparison("3", 8, 10, 90, -5e-6, communicator="comm 3", baseline_calls=500)]}]
    rows = interleaved.decide([runs], "allreduce", "0", ["0", "3"])
    assert len(rows) == 1 and rows[0]["choice"] == "3"


def test_until_decided_looks_again_while_a_choice_could_change_and_stops_at_its_budget():
    # harmonize-tune's own rule, not harmonize-ab's "every comparison
    # decided": an algorithm as fast as the default never decides, and it
    # must not hold the tuning to --max-runs once nothing could be chosen.
    def row(size, **versus):
        return {"processes": 2, "bytes": size, "default": "0", "choice": "0", "no_valid": [],
                "versus": {algorithm: {"decided": decided, "delta": delta}
                           for algorithm, (decided, delta) in versus.items()}}

    def tuning(limits, rows_by_runs):
        args = type("Args", (), {"runs": 1, "limits": limits, "quiet": True})()
        asked = []

        def look(runs):
            asked.append(runs)
            return rows_by_runs(runs), False, runs
        rows, failed = measure.until_decided(args, "allreduce", look, decide_module.still_open)
        return asked, rows

    # 3 faster than the default but undecided after one run, decided after
    # two; 2 as fast as the default, undecided throughout.
    asked, rows = tuning((5, 3600), lambda runs: [row(8, **{"3": (runs >= 2, 0.8), "2": (False, 1.0)})])
    assert asked == [1, 2] and rows[0]["versus"]["3"]["decided"]
    # Never decided: stopped at --max-runs, the last look's rows kept.
    asked, rows = tuning((3, 3600), lambda runs: [row(8, **{"3": (False, 0.8)})])
    assert asked == [1, 2, 3] and len(rows) == 1
    # Without --until-decided: one look.
    asked, _ = tuning(None, lambda runs: [row(8, **{"3": (False, 0.8)})])
    assert asked == [1]


# ------------------------------------------------------------------ end to end, real library

def needs_open_mpi(test):
    built = pytest.mark.skipif(not LIBRARY.exists() or not EXAMPLE.exists(), reason="not built")
    return built(pytest.mark.skipif(MPI_FLAVOR != "openmpi", reason="Open MPI's algorithms (ompi_info)")(test))


def tune_example(output, collective, *arguments, ompi_info=None):
    env = {k: v for k, v in clean_environment().items()
           if not k.startswith(("HARMONIZE_", "OMPI_MCA_", "MPIR_CVAR_"))}
    env.pop("LD_PRELOAD", None)
    info = ["--ompi-info", str(ompi_info)] if ompi_info else []
    return subprocess.run([str(TUNE), "--interleave", "-q", "-o", str(output), "--library", str(LIBRARY),
                           "--mpi", "openmpi", *info, "--collectives", collective, "--sizes", "4:4096",
                           *arguments, "--",
                           *mpiexec_command(2, [str(EXAMPLE), "-c", collective, "-m", "4:4096", "-i", "2000",
                                                "-x", "10"], preload=False)],
                          env=env, capture_output=True, text=True, timeout=900)


@needs_open_mpi
def test_allreduce_is_tuned_from_one_interleaved_run(tmp_path):
    result = tune_example(tmp_path / "out", "allreduce", "--no-verify")
    assert result.returncode == 0, result.stdout + result.stderr
    plan = json.loads((tmp_path / "out" / "allreduce" / "plan.json").read_text())
    assert plan["sides"] == ["interleaved"] and plan["runs"] == 1
    assert "HARMONIZE_INTERLEAVE=0:MODE=harmonize,ALLREDUCE=0;1:MODE=harmonize,ALLREDUCE=1" in \
        " ".join(plan["settings"]["interleaved"])
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    assert {row["bytes"] for row in rows} == {str(1 << k) for k in range(2, 13)}
    by = {(row["bytes"], row["algorithm"]): row for row in rows}
    # Open MPI's basic_linear reduces to rank 0 and broadcasts: at 4 KiB about
    # three times the default's t_global here, decided whatever the load.
    assert by["4096", "1"]["decided"] == "true" and float(by["4096", "1"]["ratio_to_default"]) > 1.2
    assert "(p " in result.stdout  # the sign test's p, not an interval


@needs_open_mpi
def test_until_decided_adds_interleaved_runs_by_harmonize_tune_s_own_rule(tmp_path):
    result = tune_example(tmp_path / "out", "allreduce", "--until-decided", "--max-runs", "2", "--no-verify",
                          "--sizes", "1024:4096")
    assert result.returncode == 0, result.stdout + result.stderr
    plan = json.loads((tmp_path / "out" / "allreduce" / "plan.json").read_text())
    # harmonize-tune adds the runs (--resume), not harmonize-ab's
    # --until-decided, which stops only once every algorithm is told apart.
    assert plan["runs"] in (1, 2) and "sequential_looks" not in plan
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    assert {row["bytes"] for row in rows} == {"1024", "2048", "4096"}


@needs_open_mpi
def test_bcast_s_ten_algorithms_run_in_two_groups_and_are_verified_interleaved(tmp_path):
    result = tune_example(tmp_path / "out", "bcast")
    assert result.returncode == 0, result.stdout + result.stderr
    for group, sides in ((1, "0 1 2 3 4 5 6 7"), (2, "0 8 9")):
        plan = json.loads((tmp_path / "out" / "bcast" / f"sides-{group}" / "plan.json").read_text())
        named = [part.split(":")[0] for part in
                 plan["settings"]["interleaved"][0].removeprefix("HARMONIZE_INTERLEAVE=").split(";")]
        assert " ".join(named) == sides
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    assert {row["algorithm"] for row in rows} == {str(value) for value in range(1, 10)}
    # The verification is interleaved too: the algorithm each rule names
    # against the default; a rule left in the file is one it confirmed.
    written = tmp_path / "out" / "ompi-coll-rules.conf"
    final = rules.parse_ompi_rules(written.read_text()) if written.exists() else {}
    for row in csv.DictReader((tmp_path / "out" / "verification.csv").open()) if final else []:
        kept = rules.rule_at(final, "bcast", int(row["processes"]), int(row["bytes"]))
        assert kept in (None, "0") or row["verdict"] == "confirmed", row


@needs_open_mpi
def test_an_algorithm_the_mpi_refuses_fails_alone_and_the_others_decide(tmp_path):
    # A listing with an 8th allreduce algorithm Open MPI 4.1.4 does not have:
    # the library stops the interleaved job at MPI_Init (every side with it),
    # so each algorithm runs again beside the default alone.
    listing = OMPI_INFO.read_text() + \
        "mca:coll:tuned:param:coll_tuned_allreduce_algorithm:enumerator:value:7:imaginary\n"
    fake = tmp_path / "ompi_info"
    fake.write_text(f"#!/bin/sh\ncat <<'EOF'\n{listing}EOF\n")
    fake.chmod(0o755)
    result = tune_example(tmp_path / "out", "allreduce", "--no-verify", "--sizes", "1024:4096", ompi_info=fake)
    assert result.returncode == 1, result.stdout + result.stderr  # some runs failed, decided from the others
    assert (tmp_path / "out" / "allreduce" / "alone-7").is_dir()
    rows = list(csv.DictReader((tmp_path / "out" / "decisions.csv").open()))
    failed = {row["algorithm"] for row in rows if row["failed"] == "true"}
    assert failed == {"7"}
    assert all(row["ratio_to_default"] for row in rows if row["algorithm"] != "7")
