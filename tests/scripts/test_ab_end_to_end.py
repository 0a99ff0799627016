"""scripts/harmonize-ab end to end on build/bin/harmonize-example with 2 ranks:
the table, the CSV and JSON files, valid PNG plots, interleaving, failures
kept with their logs, resume and aggregate, and plots without matplotlib."""
import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import BIN, LIBRARY, SOURCE_DIR, clean_environment, mpiexec_command  # noqa: E402

AB = SOURCE_DIR / "scripts" / "harmonize-ab"
RUN = SOURCE_DIR / "scripts" / "harmonize-run"
EXAMPLE = BIN / "harmonize-example"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SIZES = [4, 8, 16, 32, 64]
RUNS = 3

pytestmark = [pytest.mark.skipif(not LIBRARY.exists(), reason=f"{LIBRARY} not built"),
              pytest.mark.skipif(not EXAMPLE.exists(), reason=f"{EXAMPLE} not built")]


def environment(**overrides):
    env = {k: v for k, v in clean_environment().items() if not k.startswith("HARMONIZE_")}
    env.pop("LD_PRELOAD", None)
    env.update(overrides)
    return env


def example_command(*flags):
    return mpiexec_command(2, [str(EXAMPLE), "-i", "100", "-x", "10", *flags])


def run_ab(args, env=None, timeout=240):
    return subprocess.run([str(AB)] + [str(a) for a in args], env=env or environment(),
                          capture_output=True, text=True, timeout=timeout)


def mode_writes_report(mode, directory):
    """Does this build's library implement `mode` (a run writes a report)?"""
    report = directory / f"probe-{mode}.json"
    command = mpiexec_command(2, [str(EXAMPLE), "-m", "4:4", "-i", "10", "-x", "1"])
    probe = subprocess.run([str(RUN), "--library", str(LIBRARY), "--mode", mode, "--set", f"REPORT={report}",
                            "--launcher", command[0], "--"] + command[1:],
                           env=environment(), capture_output=True, text=True, timeout=120)
    return probe.returncode == 0 and report.exists()


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One A/B/C comparison, shared by the tests that read its outputs."""
    directory = tmp_path_factory.mktemp("ab")
    modes = {"A": "observe", "B": "harmonize", "C": "off"}
    supported = {mode: mode == "off" or mode_writes_report(mode, directory) for mode in modes.values()}
    # Until the library implements a mode, its side runs `off`: the script is
    # still exercised end to end, and the library assertions follow the modes.
    side_modes = {side: mode if supported[mode] else "off" for side, mode in modes.items()}
    output = directory / "out"
    args = ["-n", RUNS, "--sides", "A,B,C", "-o", output, "--library", LIBRARY]
    for side, mode in side_modes.items():
        args += ["--side-mode", f"{side}={mode}"]
    result = run_ab(args + ["--"] + example_command("-f", "-m", "4:64"))
    return {"result": result, "output": output, "modes": side_modes}


def test_run_succeeds_and_prints_the_table(finished):
    result = finished["result"]
    assert result.returncode == 0, result.stdout + result.stderr
    text = result.stdout
    assert "allreduce, 2 processes" in text
    rows = [line.split() for line in text.splitlines() if line.split() and line.split()[0].isdigit()
            and len(line.split()) > 10]
    assert [int(r[0]) for r in rows] == SIZES
    for row in rows:
        medians = [float(row[1]), float(row[4]), float(row[7])]  # A, B, C medians in us
        assert all(m > 0 for m in medians)
        assert [row[3], row[6], row[9]] == [str(RUNS)] * 3
        # The ratio is printed with 3 decimals: beside a CPU hog A/B came to
        # 0.011 against 0.0114 from the printed medians.
        assert float(row[10]) == pytest.approx(medians[0] / medians[1], rel=0.02, abs=0.0006)
    # Progress lines went to stderr while the runs went.
    assert f"[{3 * RUNS}/{3 * RUNS}] run {RUNS:03d}-C ok" in result.stderr
    assert (finished["output"] / "table.txt").read_text() in text


def test_csv_and_json(finished):
    output = finished["output"]
    rows = list(csv.DictReader((output / "results.csv").open()))
    assert [int(r["size"]) for r in rows] == SIZES
    for row in rows:
        assert row["benchmark"] == "allreduce" and row["processes"] == "2"
        for side in "ABC":
            assert int(row[f"{side}_runs"]) == RUNS
            assert 0 < float(row[f"{side}_min_us"]) <= float(row[f"{side}_median_us"]) <= float(row[f"{side}_max_us"])
        assert float(row["delta"]) == pytest.approx(float(row["A_median_us"]) / float(row["B_median_us"]), rel=1e-4)
        assert row["exceeds_noise"] in ("true", "false")
    summary = json.loads((output / "summary.json").read_text())
    assert summary["sides"] == ["A", "B", "C"] and summary["modes"] == finished["modes"]
    assert summary["ok_runs"] == {"A": RUNS, "B": RUNS, "C": RUNS}
    assert summary["failed_runs"] == []
    assert [r["size"] for r in summary["results"]] == SIZES
    assert all(len(r["sides"]["A"]["values"]) == RUNS for r in summary["results"])


def test_library_statistics_follow_the_modes(finished):
    output = finished["output"]
    library = {row["side"]: row for row in csv.DictReader((output / "library.csv").open())}
    summary = json.loads((output / "summary.json").read_text())
    for side, mode in finished["modes"].items():
        if mode == "off":
            assert side not in library
            continue
        row = library[side]
        assert row["communicator"] == "MPI_COMM_WORLD" and int(row["runs"]) == RUNS
        # Warm-up plus timed iterations of 5 sizes, every run, all barriers seen.
        assert int(row["calls"]) >= RUNS * len(SIZES) * 110
        assert float(row["exit_skew_p50"]) >= 0
        if mode == "harmonize":
            assert int(row["harmonized_calls"]) > 0
        else:
            assert int(row["harmonized_calls"]) == 0
        assert summary["library"][side]["runs"] == RUNS


def test_plots_are_valid_png_images(finished):
    plots = finished["output"] / "plots"
    expected = ["latency-allreduce.png", "delta-allreduce.png"]
    if any(mode != "off" for mode in finished["modes"].values()):
        expected.append("exit-skew.png")
    if "off" not in (finished["modes"]["A"], finished["modes"]["B"]):
        expected.append("collective-allreduce.png")  # the per-call deltas
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image
    for name in expected:
        path = plots / name
        assert path.read_bytes()[:8] == PNG_SIGNATURE, name
        height, width = matplotlib.image.imread(path).shape[:2]
        assert height >= 200 and width >= 300


def test_each_measuring_side_has_a_timeline_of_its_first_run(finished):
    """Issue 28: the first run of a side that measures writes a short timeline
    (HARMONIZE_TRACE), drawn as plots/timeline-<side>.png; later runs and
    mode off write none."""
    runs = finished["output"] / "runs"
    for side, mode in finished["modes"].items():
        picture = finished["output"] / "plots" / f"timeline-{side}.png"
        if mode == "off":
            assert not (runs / f"001-{side}" / "timeline.json").exists() and not picture.exists()
            continue
        timeline = json.loads((runs / f"001-{side}" / "timeline.json").read_text())
        assert timeline["otherData"]["window"] == "16"
        assert not (runs / f"002-{side}" / "timeline.json").exists()
        assert picture.read_bytes()[:8] == PNG_SIGNATURE
    assert "stray" not in finished["result"].stderr


def test_runs_are_interleaved_and_kept(finished):
    runs = finished["output"] / "runs"
    directories = sorted(runs.iterdir())
    assert [d.name for d in directories] == [f"{i:03d}-{side}" for i in range(1, RUNS + 1) for side in "ABC"]
    # Each status.json is written when its run ends: their times give the order runs went in.
    finished_order = sorted(directories, key=lambda d: (d / "status.json").stat().st_mtime_ns)
    assert [d.name[-1] for d in finished_order] == list("ABC") * RUNS
    for directory in runs.iterdir():
        assert (directory / "stdout.txt").read_text().startswith("# harmonize example benchmark")
        assert "harmonize-run" in (directory / "command.txt").read_text()


def test_existing_output_needs_resume_or_aggregate(finished):
    result = run_ab(["-n", RUNS, "-o", finished["output"], "--library", LIBRARY, "--"] + example_command())
    assert result.returncode == 2
    assert "--resume" in result.stderr and "--aggregate" in result.stderr


def test_aggregate_without_matplotlib(finished, tmp_path):
    blocker = tmp_path / "no-matplotlib" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('matplotlib hidden by the test')\n")
    env = environment(PYTHONPATH=str(blocker.parent))
    result = run_ab(["-o", finished["output"], "--aggregate"], env=env)
    assert result.returncode == 0, result.stderr
    assert "matplotlib is not available" in result.stderr and "python3-matplotlib" in result.stderr
    assert "allreduce, 2 processes" in result.stdout
    summary = json.loads((finished["output"] / "summary.json").read_text())
    assert "matplotlib" in summary["outputs"]["plots_note"]


def test_resume_adds_runs(finished):
    args = ["-n", RUNS + 1, "--sides", "A,B,C", "-o", finished["output"], "--library", LIBRARY, "--resume"]
    for side, mode in finished["modes"].items():
        args += ["--side-mode", f"{side}={mode}"]
    result = run_ab(args + ["--"] + example_command("-f", "-m", "4:64"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{3 * RUNS} run(s) already complete" in result.stderr
    summary = json.loads((finished["output"] / "summary.json").read_text())
    assert summary["ok_runs"] == {"A": RUNS + 1, "B": RUNS + 1, "C": RUNS + 1}


def test_failing_command_is_reported_with_its_log(tmp_path):
    output = tmp_path / "fail"
    result = run_ab(["-n", 2, "--sides", "C", "-o", output, "--library", LIBRARY, "--"]
                    + example_command("--no-such-flag"))
    assert result.returncode == 3
    assert "FAILED" in result.stderr and "no run produced usable results" in result.stderr
    summary = json.loads((output / "summary.json").read_text())
    # The whole first round failed: the rest is not run (it would fail alike).
    assert "every side failed its first run" in result.stderr
    assert [f["id"] for f in summary["failed_runs"]] == ["001-C"]
    first = summary["failed_runs"][0]
    assert "exited with status" in first["errors"][0]
    assert "empty benchmark output" in " ".join(first["errors"])
    assert (Path(first["log"]) / "stderr.txt").read_text().strip()


def test_run_without_report_is_an_error(tmp_path):
    """Preloading something that is not libharmonize: the observe side writes no report."""
    stand_in = next((p for p in (Path("/lib/x86_64-linux-gnu/libm.so.6"), Path("/usr/lib64/libm.so.6"),
                                 Path("/lib64/libm.so.6")) if p.exists()), None)
    if stand_in is None:
        pytest.skip("no libm to preload as a stand-in")
    output = tmp_path / "noreport"
    result = run_ab(["-n", 1, "--sides", "A", "-o", output, "--library", stand_in, "--"]
                    + example_command("-m", "4:4"))
    assert result.returncode == 3
    status = json.loads((output / "runs" / "001-A" / "status.json").read_text())
    assert status["exit_code"] == 0 and status["rows"] == 1 and not status["ok"]
    assert "no library report" in status["errors"][0]


def test_missing_library_stops_before_any_run(tmp_path):
    output = tmp_path / "nolib"
    result = run_ab(["-n", 2, "-o", output, "--library", tmp_path / "absent.so", "--"] + example_command())
    assert result.returncode == 2
    assert "absent.so: no such file" in result.stderr
    assert not any((output / "runs").iterdir())
    # Nothing ran, so the same directory can be used again right away.
    again = run_ab(["-n", 1, "--sides", "C", "-o", output, "--library", LIBRARY, "--"] + example_command("-m", "4:4"))
    assert again.returncode == 0, again.stderr


def test_the_collective_itself_per_call(finished):
    # Both measuring sides time every allreduce; the per-call table compares
    # them size by size (the third side, off, measures nothing).
    summary = json.loads((finished["output"] / "summary.json").read_text())
    if "off" in (finished["modes"]["A"], finished["modes"]["B"]):
        assert summary["collectives"] == []
        return
    rows = summary["collectives"]
    assert sorted({r["bytes"] for r in rows if r["operation"] == "allreduce"}) == SIZES
    for row in rows:
        for side in "AB":
            assert row["sides"][side]["calls"] >= RUNS
            assert row["sides"][side]["local"] > 0
        assert row["sides"]["A"]["valid_calls"] == 0  # observe: no harmonized barrier
    assert "the collective itself, per call" in finished["result"].stdout


INTERLEAVED_LATE = ["--side", "t0:ARRIVAL=none", "--side", "late:ARRIVAL=rank:0:10us", "--"]


def interleaved_late_runs(out):
    """One interleaved run of t0 against 10 us late, then a second (--resume):
    (the first run's t_global rows, the table after it, the rows across both,
    the table after both)."""
    result = run_ab(["--interleave", "--no-plots", "-o", out, "--library", LIBRARY, *INTERLEAVED_LATE]
                    + example_command("-m", "8:16", "-i", "300"))
    assert result.returncode == 0, result.stderr
    plan = json.loads((out / "plan.json").read_text())
    assert plan["sides"] == ["interleaved"]
    assert plan["settings"]["interleaved"] == [
        "HARMONIZE_INTERLEAVE=t0:MODE=harmonize,ARRIVAL=none;late:MODE=harmonize,ARRIVAL=rank:0:10us"]
    runs = json.loads((out / "summary.json").read_text())["interleaved"]
    assert len(runs) == 1  # one run by default
    rows = [row for row in runs[0]["comparisons"] if row["figure"] == "t_global"]
    table = (out / "table.txt").read_text()
    more = run_ab(["--interleave", "--no-plots", "-o", out, "--library", LIBRARY, "--resume", "-n", "2",
                   *INTERLEAVED_LATE] + example_command("-m", "8:16", "-i", "300"))
    assert more.returncode == 0, more.stderr
    across = json.loads((out / "summary.json").read_text())["interleaved_across"]
    return rows, table, across, (out / "table.txt").read_text()


def decided_lower(rows, across):
    return (any(row["decided"] and row["delta"] <= 0 for row in rows) or
            any(row["verdict"] not in ("higher in every run", "not decided in every run") for row in across))


def test_interleave_compares_the_sides_inside_one_run(tmp_path):
    # A side that leaves rank 0 10 us late against t0, inside one run: the
    # sides folded into HARMONIZE_INTERLEAVE, the library's comparison in the
    # table and summary (issue 45).
    # The plumbing, not the verdict: 9.9-10.1 us decided when idle, but beside
    # a CPU hog (3 busy processes on 2 cores) t_global's median was 8 ms, and
    # 155 blocks may decide nothing, or, at the sign test's level (2.5 % a
    # side), decide it lower: -16 us once in CI. A fresh pair of runs tells
    # that chance from a wrong sign, which decides lower twice. The delay
    # recovered is tests/mpi/test_interleave.py's.
    rows, table, across, final_table = interleaved_late_runs(tmp_path / "interleaved")
    if decided_lower(rows, across):
        rows, table, across, final_table = interleaved_late_runs(tmp_path / "again")
    assert [row["bytes"] for row in rows] == [8, 16]
    for row in rows:
        assert row["side"] == "late" and row["blocks"] > 100, row
        assert row["delta"] > 0 or not row["decided"], row
    assert "interleaved run 1 (seed" in table and "delta: the side less t0" in table
    assert "the collective itself" not in table  # one side holds both: no self-comparison
    assert "across the" not in table
    # The second run: whether the runs agree, per size.
    assert {(row["bytes"], row["figure"]) for row in across} == {
        (8, "t_global"), (16, "t_global"), (8, "local_max"), (16, "local_max")}
    assert not decided_lower([], across), across
    assert "across the 2 interleaved runs" in final_table


def test_interleave_until_decided_pools_the_runs_blocks(tmp_path):
    # --until-decided adds interleaved runs and pools their blocks
    # (ab/sequential.py): 10 us late against t0 is decided from the first run
    # when the machine is idle; beside a CPU hog it may take more runs or
    # stay undecided, never the wrong way, and never beyond --max-runs.
    out = tmp_path / "sequential"
    result = run_ab(["--interleave", "--until-decided", "--max-runs", "3", "--decide-on", "t_global",
                     "--no-plots", "-o", out, "--library", LIBRARY,
                     "--side", "t0:ARRIVAL=none", "--side", "late:ARRIVAL=rank:0:10us", "--"]
                    + example_command("-m", "8:16", "-i", "300"))
    assert result.returncode == 0, result.stderr
    plan = json.loads((out / "plan.json").read_text())
    assert plan["sequential_looks"] == 3 and 1 <= plan["runs"] <= 3
    summary = json.loads((out / "summary.json").read_text())
    runs, pooled = summary["interleaved"], summary["interleaved_pooled"]
    assert len(runs) == plan["runs"]
    assert {(row["bytes"], row["figure"]) for row in pooled} == {
        (8, "t_global"), (16, "t_global"), (8, "local_max"), (16, "local_max")}
    for row in pooled:
        own = [r for run in runs for r in run["comparisons"]
               if (r["bytes"], r["figure"]) == (row["bytes"], row["figure"])]
        assert row["positive_blocks"] == sum(r["positive_blocks"] for r in own)
        assert row["negative_blocks"] == sum(r["negative_blocks"] for r in own)
        assert row["positive_blocks"] + row["negative_blocks"] <= sum(r["blocks"] for r in own)
        assert row["level_each"] == pytest.approx(0.05 / (4 * 3))
        assert row["verdict"] != "lower", row
    until = summary["until_decided"]
    undecided = [row for row in pooled if row["figure"] == "t_global" and row["decided_at"] is None]
    if plan["runs"] > 1:  # what was left open is counted among the comparisons of the figure
        assert "of 2 comparisons undecided after 1 runs per side" in result.stderr, result.stderr
    if undecided:
        assert plan["runs"] == 3 and until["stopped"] == "--max-runs 3 reached", until
    else:
        assert until["stopped"] == "every size decided (delta of t_global)", until
    table = (out / "table.txt").read_text()
    assert "pooled over the" in table and "across the" not in table


def test_interleave_refuses_what_the_library_cannot_switch(tmp_path):
    for sides, message in ((["--sides", "A,C"], "side C runs in mode off"),
                           (["--side", "x:OMPI_MCA_btl=self,tcp", "--side",
                             "y:ARRIVAL=none"], "side x sets OMPI_MCA_btl"),
                           (["--until-decided", "--max-runs", "0"], "--max-runs 0: deciding needs at least 1 run")):
        result = run_ab(["--interleave", "-o", tmp_path / "refused", *sides, "--"] + example_command())
        assert result.returncode == 2, (sides, result.stderr)
        assert message in result.stderr, (sides, result.stderr)
        assert not (tmp_path / "refused" / "runs").exists()
