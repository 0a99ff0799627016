"""harmonize-ab's delta interval over runs and --until-decided (issue 25), on
the stand-in benchmark tests/fixtures/sweep/fake-mpiexec (no MPI, no build),
whose per-call times are known exactly: FAKE_SPREAD spreads each run's calls
evenly over [0.5, 1.5] times their median, FAKE_DISTURB makes the named runs
twice as slow. The pure statistics are tested exactly in test_ab_stats.py."""
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from conftest import SOURCE_DIR, clean_environment  # noqa: E402

AB = SOURCE_DIR / "scripts" / "harmonize-ab"
FAKE = TESTS / "fixtures" / "sweep" / "fake-mpiexec"
T0 = {4: 10e-6, 64: 12e-6, 1024: 20e-6}  # the stand-in's t_global without delay


def bucket(value):
    """(low, midpoint, high) of the library's histogram bucket holding `value`."""
    mantissa, exponent = math.frexp(value)
    sub = int((2 * mantissa - 1) * 64)
    return tuple(math.ldexp(1 + (sub + where) / 64, exponent - 1) for where in (0.0, 0.5, 1.0))


def local(size, delta):
    """The stand-in's local time of every call: 0.9 t_global, each snapped to its bucket."""
    t_global = bucket(T0[size] + max(0.0, delta - T0[size] / 2))[1]
    return bucket(0.9 * t_global)


def run_ab(output, *arguments, **fake):
    env = {k: v for k, v in clean_environment().items() if not k.startswith("HARMONIZE_")}
    env.pop("LD_PRELOAD", None)
    env.update(fake)
    library = next(p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6", "/lib64/libm.so.6",
                               "/lib/aarch64-linux-gnu/libm.so.6") if Path(p).exists())
    return subprocess.run([str(AB), "-o", str(output), "--library", library, "--no-plots",
                           *[str(a) for a in arguments], "--", FAKE, "-n", "4", "osu_allreduce", "-f"],
                          env=env, capture_output=True, text=True, timeout=300)


def summary_of(output):
    return json.loads((output / "summary.json").read_text())


def deltas(summary, figure="local"):
    return {row["bytes"]: row["pooled"][figure] for row in summary["collectives"]}


def test_a_disturbed_run_widens_the_interval_instead_of_deciding(tmp_path):
    """A and B run the same calls (delta = 1 exactly); run 002-A is twice as
    slow. Pooling the calls moved A's median to 1.2 times B's with a narrow
    interval: 'decided', falsely. Over runs the interval reaches 1."""
    result = run_ab(tmp_path / "out", "-n", 3, FAKE_SPREAD="1", FAKE_DISTURB="002-A")
    assert result.returncode == 0, result.stdout + result.stderr
    for size, delta in deltas(summary_of(tmp_path / "out")).items():
        assert delta["calls_low"] > 1.1, (size, delta)  # what the calls alone said
        assert delta["delta"] == pytest.approx(1.2, abs=0.02)
        # Resamples without the disturbed run give delta = 1 exactly.
        assert delta["delta_low"] == 1.0 and delta["delta_high"] >= delta["calls_high"]
        assert not delta["decided"] and delta["reason"] == "runs disagree"
    # The table says why, for local and t_global alike.
    rows = [line for line in result.stdout.splitlines() if line.startswith("MPI_COMM_WORLD  allreduce")]
    assert len(rows) == 3 and all(line.count("  runs disagree  ") == 2 for line in rows), rows


def test_until_decided_adds_rounds_until_every_size_is_decided(tmp_path):
    """A late process (20 us) against none: delta is known exactly; the runs
    agree, so the third run a side (the least that may decide) decides."""
    output = tmp_path / "out"
    result = run_ab(output, "-n", 2, "--until-decided", "--max-runs", 6, "--side", "late:ARRIVAL=rank:0:20us",
                    "--side", "t0:ARRIVAL=none")
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(d.name for d in (output / "runs").iterdir()) == \
        [f"{i:03d}-{side}" for i in (1, 2, 3) for side in ("late", "t0")]
    assert json.loads((output / "plan.json").read_text())["runs"] == 3
    summary = summary_of(output)
    for size, delta in deltas(summary).items():
        late, t0 = local(size, 20e-6), local(size, 0.0)
        assert (delta["delta"], delta["delta_low"], delta["delta_high"]) == \
            (late[1] / t0[1], late[0] / t0[2], late[2] / t0[0])
        assert delta["decided"] and delta["runs"] == [3, 3]
    until = summary["until_decided"]
    assert until["stopped"] == "every size decided (delta of local)" and until["undecided"] == []
    assert until["runs_per_side"] == 3 and until["sizes"] == 3
    assert "until decided: 3 of 3 sizes undecided after 2 runs per side" in result.stderr
    assert "too few runs" in result.stderr
    assert "until decided (delta of local per call): stopped after 3 runs per side" in result.stdout


def test_until_decided_says_which_sizes_stayed_undecided_and_why(tmp_path):
    output = tmp_path / "out"
    result = run_ab(output, "-n", 3, "--until-decided", "--max-runs", 4, "--decide-on", "t_global",
                    FAKE_SPREAD="1", FAKE_DISTURB="002-A")
    assert result.returncode == 0, result.stdout + result.stderr
    until = summary_of(output)["until_decided"]
    assert until["stopped"] == "--max-runs 4 reached" and until["runs_per_side"] == 4
    assert [entry["size"] for entry in until["undecided"]] == [f"MPI_COMM_WORLD allreduce {size} B" for size in T0]
    for entry in until["undecided"]:
        assert entry["reason"] == "runs disagree" and entry["delta_low"] == 1.0 and entry["runs"] == [4, 4]
    assert "3 of 3 sizes undecided:" in result.stdout
    assert "  MPI_COMM_WORLD allreduce 4 B: runs disagree (delta 1." in result.stdout


def test_until_decided_stops_before_a_round_that_would_exceed_max_time(tmp_path):
    output = tmp_path / "out"
    result = run_ab(output, "-n", 2, "--until-decided", "--max-time", "0.1s")
    assert result.returncode == 0, result.stdout + result.stderr
    until = summary_of(output)["until_decided"]
    assert until["stopped"].startswith("--max-time 0.1 s: another round (about ")
    assert until["runs_per_side"] == 2
    assert {entry["reason"] for entry in until["undecided"]} == {"too few runs"}


@pytest.mark.parametrize("arguments, message", [
    (["--max-runs", "5"], "--max-runs needs --until-decided"),
    (["--max-runs", "5", "--max-time", "1m"], "--max-runs and --max-time need --until-decided"),
    (["--until-decided", "--max-runs", "2"], "--max-runs 2: deciding needs at least 3 runs a side"),
    (["--until-decided", "-n", "6", "--max-runs", "5"], "--max-runs 5 is below --runs 6"),
    (["--until-decided", "--max-time", "soon"], "--max-time 'soon': expected a positive number of seconds"),
    (["--until-decided", "--max-time", "0"], "--max-time '0': expected a positive number"),
    (["--until-decided", "--sides", "A,C"], "side C runs in mode off"),
    (["--until-decided", "--sides", "B"], "--until-decided compares two sides; there is only one"),
    (["--until-decided", "--aggregate"], "--aggregate runs none"),
    (["--stop-stale"], "--stop-stale goes with --resume"),
])
def test_until_decided_usage_errors(tmp_path, arguments, message):
    output = tmp_path / "out"
    result = run_ab(output, *arguments)
    assert result.returncode == 2, result.stdout + result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.startswith("harmonize-ab: error:")]
    assert message in line
    assert not output.exists()
