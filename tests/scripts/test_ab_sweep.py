"""harmonize-ab's named sides and --sweep (issue 13): the parsers of --side
and --sweep, the delay an arrival pattern imposes, and a sweep end to end on
a stand-in benchmark (tests/fixtures/sweep/fake-mpiexec: no MPI, no build)
whose reports make t_global(delta) known exactly, so that b(delta) is
checked against paper 002's formula: table, arrival.csv, summary.json, the
plot, --resume and the usage errors."""
import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from conftest import SOURCE_DIR, clean_environment  # noqa: E402
from harmonize_tools import common  # noqa: E402
from harmonize_tools.ab import sides  # noqa: E402

AB = SOURCE_DIR / "scripts" / "harmonize-ab"
FAKE = TESTS / "fixtures" / "sweep" / "fake-mpiexec"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------ --side

def test_side_settings_split_only_before_a_key():
    assert sides.parse_side("late:ARRIVAL=ranks:0,3:10us,SLACK=20us") == \
        ("late", [("HARMONIZE_ARRIVAL", "ranks:0,3:10us"), ("HARMONIZE_SLACK", "20us")])
    assert sides.parse_side("x.1-b_2:HARMONIZE_MODE=observe") == ("x.1-b_2", [("HARMONIZE_MODE", "observe")])
    # The first key may be written in any case (as harmonize-run --set takes it).
    assert sides.parse_side("s:arrival=rank:0:5us") == ("s", [("HARMONIZE_ARRIVAL", "rank:0:5us")])


def test_sides_take_the_mpi_librarys_own_settings():
    # Open MPI's parameter names stay as written; MPICH's CVARs are upper case.
    assert sides.parse_side("alg4:OMPI_MCA_coll_tuned_allreduce_algorithm=4,MODE=observe") == \
        ("alg4", [("OMPI_MCA_coll_tuned_allreduce_algorithm", "4"), ("HARMONIZE_MODE", "observe")])
    assert sides.parse_side("rd:mpir_cvar_allreduce_intra_algorithm=recursive_doubling") == \
        ("rd", [("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "recursive_doubling")])
    assert sides.parse_side("two:OMPI_MCA_btl=self,tcp,slack=1us") == \
        ("two", [("OMPI_MCA_btl", "self,tcp"), ("HARMONIZE_SLACK", "1us")])
    assert [name for name, _ in sides.parse_sweep("OMPI_MCA_coll_tuned_bcast_algorithm=1,2,6")] == \
        ["1", "2", "6"]
    assert sides.define_side("alg4", [("OMPI_MCA_coll_tuned_allreduce_algorithm", "4")], "w") == \
        {"mode": "harmonize", "config": None, "settings": ["OMPI_MCA_coll_tuned_allreduce_algorithm=4"]}


def test_side_definition_defaults_to_harmonize():
    assert sides.define_side("late", [("HARMONIZE_ARRIVAL", "rank:0:5us")], "w") == \
        {"mode": "harmonize", "config": None, "settings": ["HARMONIZE_ARRIVAL=rank:0:5us"]}
    observed = sides.define_side("ref", [("HARMONIZE_MODE", "observe"), ("HARMONIZE_CONFIG", "p.env")], "w")
    assert observed == {"mode": "observe", "config": "p.env", "settings": []}


@pytest.mark.parametrize("text, message", [
    ("late", "expected NAME:KEY=VALUE"),
    ("late:", "expected NAME:KEY=VALUE"),
    ("bad name:ARRIVAL=none", "side name 'bad name'"),
    (":ARRIVAL=none", "side name ''"),
    ("A:ARRIVAL=none", "A is a predefined side"),
    ("x.failed-1:ARRIVAL=none", "'.failed-'"),
    ("late:ARRIVAL", "'ARRIVAL' is not KEY=VALUE"),
    ("late:ARRIVAL=", "ARRIVAL= has no value"),
    ("late:9X=1", "'9X=1' is not KEY=VALUE"),
])
def test_side_errors_name_the_argument(text, message):
    with pytest.raises(ValueError) as error:
        name, settings = sides.parse_side(text)
        sides.define_side(name, settings, f"--side {text!r}")
    assert f"--side {text!r}" in str(error.value) and message in str(error.value)


@pytest.mark.parametrize("settings, message", [
    ([("HARMONIZE_MODE", "fast")], "MODE='fast': expected one of off, observe, harmonize"),
    ([("HARMONIZE_REPORT", "r.json")], "HARMONIZE_REPORT cannot be set per side"),
    ([("HARMONIZE_LIBRARY", "l.so")], "use --library"),
    ([("HARMONIZE_SLACK", "1us"), ("HARMONIZE_SLACK", "2us")], "HARMONIZE_SLACK given twice"),
])
def test_side_definition_errors(settings, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        sides.define_side("s", settings, "--side 's:...'")


# ------------------------------------------------------------------ --sweep

def test_sweep_items_without_colon_replace_the_last_field():
    assert sides.expand_sweep_values(["rank:0:0us", "1us", "5us", "20us", "100us"]) == \
        ["rank:0:0us", "rank:0:1us", "rank:0:5us", "rank:0:20us", "rank:0:100us"]
    # The last value with a ':' is the template: t0 may come first as 'none'.
    assert sides.expand_sweep_values(["rank:0:0us", "linear:10us", "5us"]) == \
        ["rank:0:0us", "linear:10us", "linear:5us"]
    assert sides.expand_sweep_values(["none", "rank:0:1us", "5us"]) == \
        ["none", "rank:0:1us", "rank:0:5us"]
    assert sides.expand_sweep_values(["10us", "20us", "auto"]) == ["10us", "20us", "auto"]
    # A ranks: value's list has commas of its own.
    assert sides.expand_sweep_values(["ranks:0", "1", "3:0us", "5us"]) == ["ranks:0,1,3:0us", "ranks:0,1,3:5us"]


def test_sweep_sides_are_named_after_what_differs():
    assert sides.parse_sweep("ARRIVAL=rank:0:0us,1us,5us") == [
        ("0us", [("HARMONIZE_ARRIVAL", "rank:0:0us")]), ("1us", [("HARMONIZE_ARRIVAL", "rank:0:1us")]),
        ("5us", [("HARMONIZE_ARRIVAL", "rank:0:5us")])]
    assert sides.sweep_names(["none", "rank:0:5us", "linear:10us"]) == ["none", "rank_0_5us", "linear_10us"]
    assert sides.sweep_names(["ranks:0,3:2.5us", "ranks:0,3:1ms"]) == ["2.5us", "1ms"]
    assert sides.sweep_names(["a:b", "a_b"]) == ["a_b", "a_b-2"]
    assert sides.sweep_names(["x:A", "x:B"]) == ["A_", "B_"]  # not the predefined A and B
    assert sides.parse_sweep("slack=10us,20us")[1] == ("20us", [("HARMONIZE_SLACK", "20us")])


@pytest.mark.parametrize("text, message", [
    ("ARRIVAL", "expected KEY=V1,V2"),
    ("ARRIVAL=", "expected KEY=V1,V2"),
    ("=1us", "expected KEY=V1,V2"),
    ("ARRIVAL=rank:0:1us,,5us", "an empty value"),
    ("ARRIVAL=rank:0:1us,1us", "a value is given twice"),
])
def test_sweep_errors_name_the_argument(text, message):
    with pytest.raises(ValueError) as error:
        sides.parse_sweep(text)
    assert f"--sweep {text!r}" in str(error.value) and message in str(error.value)


# ------------------------------------------------------------------ delta of a pattern

@pytest.mark.parametrize("text, seconds", [
    ("5us", 5e-6), ("2.5us", 2.5e-6), ("0us", 0.0), ("0", 0.0), ("1ms", 1e-3), ("250ns", 250e-9),
    ("3s", 3.0), ("100us", 100e-6), (".5ms", 0.5e-3),
])
def test_durations_are_the_decimal_exactly(text, seconds):
    assert common.parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["5", "5 minutes", "us", "-1us", "1e3us", ""])
def test_bad_durations(text):
    with pytest.raises(ValueError, match="not a duration"):
        common.parse_duration(text)


@pytest.mark.parametrize("pattern, delta", [
    ("none", 0.0), ("rank:0:10us", 10e-6), ("rank:3:0us", 0.0), ("ranks:0,3:2.5us", 2.5e-6),
    ("node:1:1ms", 1e-3), ("linear:20us", 20e-6), ("random:50us", 50e-6), ("random:50us:42", 50e-6),
    ("file:/tmp/delays.txt", None),
])
def test_pattern_delta(pattern, delta):
    assert common.pattern_delta(pattern) == delta


@pytest.mark.parametrize("pattern", ["", "rank:0", "rank::5us", "late:5us", "none:1us", "linear:5us:1",
                                     "rank:0:5", "file:"])
def test_bad_patterns(pattern):
    with pytest.raises(ValueError):
        common.pattern_delta(pattern)


def test_setting_value_takes_the_last():
    assert sides.setting_value(["ARRIVAL=none", "HARMONIZE_SLACK=1us", "harmonize_arrival=rank:0:1us"],
                               "HARMONIZE_ARRIVAL") == "rank:0:1us"
    assert sides.setting_value(["SLACK=1us"], "HARMONIZE_ARRIVAL") is None


# ------------------------------------------------------------------ a sweep end to end

# The stand-in's model (tests/fixtures/sweep/fake-mpiexec): t0 per size, and a
# delay hides up to half of t0; every valid call falls into one bucket.
T0 = {4: 10e-6, 64: 12e-6, 1024: 20e-6}
SWEEP = {"0us": 0.0, "1us": 1e-6, "5us": 5e-6, "20us": 20e-6, "100us": 100e-6}
OLD = 10e-6  # side "old": its reports carry no "arrival" (delta from its setting)
RUNS = 2
SIDE_ARGUMENTS = ["--side", "native:MODE=observe", "--sweep", "ARRIVAL=rank:0:0us,1us,5us,20us,100us",
                  "--side", "old:ARRIVAL=rank:0:10us,FAKE_OLD=1"]
SIDES = ["native", *SWEEP, "old"]


def bucket(value):
    """(low, midpoint, high) of the library's histogram bucket holding `value` (docs/report.md)."""
    mantissa, exponent = math.frexp(value)
    sub = int((2 * mantissa - 1) * 64)
    return tuple(math.ldexp(1 + (sub + where) / 64, exponent - 1) for where in (0.0, 0.5, 1.0))


def t_global(size, delta):
    return bucket(T0[size] + max(0.0, delta - T0[size] / 2))


def stand_in_library():
    """A harmless system library to preload (the stand-in needs no libharmonize)."""
    for path in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6", "/lib64/libm.so.6",
                 "/lib/aarch64-linux-gnu/libm.so.6"):
        if Path(path).exists():
            return path
    pytest.skip("no libm to preload as a stand-in")


def run_ab(output, *arguments, log=None, extra_env=None):
    env = {k: v for k, v in clean_environment().items()
           if not k.startswith(("HARMONIZE_", "OMPI_MCA_", "MPIR_CVAR_"))}
    env.pop("LD_PRELOAD", None)
    if log:
        env["FAKE_LOG"] = str(log)
    env.update(extra_env or {})
    return subprocess.run([str(AB), "-o", str(output), "--library", stand_in_library(), "-q",
                           *[str(a) for a in arguments]], env=env, capture_output=True, text=True,
                          timeout=300)


def sweep(output, *extra, log=None):
    return run_ab(output, "-n", RUNS, *SIDE_ARGUMENTS, *extra, "--", FAKE, "-n", "4", "osu_allreduce", "-f",
                  log=log)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    directory = tmp_path_factory.mktemp("sweep")
    result = sweep(directory / "out", log=directory / "log")
    assert result.returncode == 0, result.stdout + result.stderr
    return {"result": result, "output": directory / "out", "log": directory / "log"}


def expected_b(size, delta):
    t0, td = t_global(size, 0.0), t_global(size, delta)
    return ((t0[1] + delta - td[1]) / td[1],
            (t0[0] + delta - td[2]) / td[2], (t0[2] + delta - td[0]) / td[0])


def test_sides_run_interleaved_in_the_order_given(swept):
    runs = sorted(d.name for d in (swept["output"] / "runs").iterdir())
    assert runs == sorted(f"{i:03d}-{side}" for i in range(1, RUNS + 1) for side in SIDES)
    lines = swept["log"].read_text().splitlines()
    patterns = ["observe none"] + [f"harmonize rank:0:{side}" for side in SWEEP] + ["harmonize rank:0:10us"]
    assert lines == patterns * RUNS
    plan = json.loads((swept["output"] / "plan.json").read_text())
    assert plan["sides"] == SIDES
    assert plan["modes"]["native"] == "observe" and plan["modes"]["5us"] == "harmonize"
    assert plan["settings"]["5us"] == ["HARMONIZE_ARRIVAL=rank:0:5us"]
    assert plan["settings"]["old"] == ["HARMONIZE_ARRIVAL=rank:0:10us", "HARMONIZE_FAKE_OLD=1"]


def test_b_of_each_side_and_size_is_paper_002s(swept):
    summary = json.loads((swept["output"] / "summary.json").read_text())
    arrival = summary["arrival"]
    assert arrival["applies"] and arrival["t0_side"] == "0us" and arrival["note"] is None
    assert arrival["sides"]["native"] == {"pattern": None, "delta": None, "delta_source": None}
    assert arrival["sides"]["5us"] == {"pattern": "rank:0:5us", "delta": 5e-6, "delta_source": "report"}
    assert arrival["sides"]["old"] == {"pattern": "rank:0:10us", "delta": 10e-6, "delta_source": "setting"}
    rows = {(r["bytes"], r["side"]): r for r in arrival["rows"]}
    deltas = dict(SWEEP, old=OLD)
    assert set(rows) == {(size, side) for size in T0 for side in deltas}  # observe: no pattern, no row
    for size in T0:
        assert [r["side"] for r in arrival["rows"] if r["bytes"] == size] == \
            ["0us", "1us", "5us", "old", "20us", "100us"]  # by delta
        for side, delta in deltas.items():
            row = rows[(size, side)]
            assert (row["t_global_low"], row["t_global"], row["t_global_high"]) == t_global(size, delta)
            assert row["calls"] == RUNS * 1000 and row["valid_calls"] == RUNS * 900
            assert row["arrival_error"] == bucket(50e-9)[1]
            assert row["arrival_skew"] == (bucket(delta)[1] if delta else 0.0)
            if side == "0us":
                assert row["is_t0"] and row["b"] is None
                continue
            assert (row["b"], row["b_low"], row["b_high"]) == expected_b(size, delta), (size, side)
    # The model: 5 us of delay hidden entirely in t0 = 10 us (b = delta / t0, midpoints aside).
    assert rows[(4, "5us")]["b"] == pytest.approx(0.5, rel=0.01)
    assert rows[(4, "20us")]["b"] == pytest.approx((10 + 20 - 25) / 25, rel=0.02)


def test_arrival_csv(swept):
    rows = list(csv.DictReader((swept["output"] / "arrival.csv").open()))
    assert list(rows[0]) == ["communicator", "operation", "bytes", "root", "side", "mode", "pattern", "delta_s",
                             "delta_source", "calls", "valid_calls", "t_global_s", "t_global_low95_s",
                             "t_global_high95_s", "t0_side", "b", "b_low95", "b_high95", "arrival_skew_s",
                             "arrival_error_s"]
    assert len(rows) == len(T0) * (len(SWEEP) + 1)
    for row in rows:
        assert row["communicator"] == "MPI_COMM_WORLD" and row["operation"] == "allreduce"
        assert row["root"] == "" and row["mode"] == "harmonize" and row["t0_side"] == "0us"
        delta = float(row["delta_s"])
        size = int(row["bytes"])
        assert float(row["t_global_s"]) == t_global(size, delta)[1]
        if row["side"] == "0us":
            assert row["b"] == row["b_low95"] == row["b_high95"] == ""
        else:
            assert tuple(float(row[k]) for k in ("b", "b_low95", "b_high95")) == expected_b(size, delta)
    assert {r["delta_source"] for r in rows if r["side"] == "old"} == {"setting"}


def test_table_has_the_late_arrivals_section(swept):
    text = (swept["output"] / "table.txt").read_text()
    assert text in swept["result"].stdout
    section = text[text.index("late arrivals: t_global and delay overlap benefit b(delta)"):]
    assert "t0 = side 0us" in section and "MPI_COMM_WORLD allreduce" in section
    row = next(line.split() for line in section.splitlines() if line.split()[:2] == ["4", "5us"])
    b = expected_b(4, 5e-6)
    assert row[2] == "rank:0:5us" and row[3:5] == ["5", "us"] and row[5] == "90%"
    assert row[10] == f"{b[0]:.3f}" and row[11] == f"{b[1]:.3f}..{b[2]:.3f}"
    assert "10 us*" in section and "* delta from the side's ARRIVAL setting" in section
    # The benchmark's latency: a row per size and side, set against t0.
    assert "/ 0us" in text
    latency = next(line.split() for line in text.splitlines() if line.split()[:3] == ["4", "20us", "harmonize"])
    assert float(latency[3]) == pytest.approx(1e6 * t_global(4, 20e-6)[1], abs=0.006)


def test_results_csv_sets_each_side_against_t0(swept):
    rows = list(csv.DictReader((swept["output"] / "results.csv").open()))
    assert [int(r["size"]) for r in rows] == list(T0)
    for row in rows:
        assert "0us_ratio" not in row
        assert float(row["20us_ratio"]) == pytest.approx(float(row["20us_median_us"]) / float(row["0us_median_us"]),
                                                         rel=1e-6)


def test_arrival_plot_is_drawn(swept):
    path = swept["output"] / "plots" / "arrival-allreduce.png"
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    summary = json.loads((swept["output"] / "summary.json").read_text())
    assert str(path) in summary["outputs"]["plots"]


def test_plot_sizes_are_spread_over_the_range():
    from harmonize_tools.ab.plots import spread_choice
    assert spread_choice([1, 2, 3], 6) == [1, 2, 3]
    assert spread_choice(list(range(11)), 6) == [0, 2, 4, 6, 8, 10]
    assert spread_choice([2 ** i for i in range(20)], 6)[::5] == [1, 2 ** 19]


def test_t0_can_be_chosen_and_must_be_without_delay(swept, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(swept["output"], copy)
    result = run_ab(copy, "--aggregate", "--t0", "5us")
    assert result.returncode == 0, result.stderr
    arrival = json.loads((copy / "summary.json").read_text())["arrival"]
    assert arrival["t0_side"] is None and "--t0 5us" in arrival["note"]
    assert all(row["b"] is None for row in arrival["rows"])
    assert "b not computed" in result.stdout
    unknown = run_ab(copy, "--aggregate", "--t0", "nosuch")
    assert unknown.returncode == 2 and "--t0 nosuch: no such side" in unknown.stderr


def test_resume_reruns_only_the_missing_run(swept, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(swept["output"], copy)
    shutil.rmtree(copy / "runs" / "002-5us")
    log = tmp_path / "log"
    result = sweep(copy, "--resume", log=log)
    assert result.returncode == 0, result.stderr
    assert log.read_text().splitlines() == ["harmonize rank:0:5us"]
    assert (copy / "runs" / "002-5us" / "status.json").exists()
    assert json.loads((copy / "summary.json").read_text())["ok_runs"] == {side: RUNS for side in SIDES}


@pytest.mark.parametrize("changed", [
    ["--side", "native:MODE=observe", "--sweep", "ARRIVAL=rank:0:0us,1us,5us,20us"],  # one side fewer
    ["--side", "native:MODE=observe", "--sweep", "ARRIVAL=rank:1:0us,1us,5us,20us,100us",
     "--side", "old:ARRIVAL=rank:0:10us,FAKE_OLD=1"],  # the same names, other settings
])
def test_resume_with_other_sides_is_an_error(swept, tmp_path, changed):
    copy = tmp_path / "copy"
    shutil.copytree(swept["output"], copy)
    result = run_ab(copy, "-n", RUNS, "--resume", *changed, "--", FAKE, "-n", "4", "osu_allreduce", "-f",
                    log=tmp_path / "log")
    assert result.returncode == 2
    [line] = [line for line in result.stderr.splitlines() if line.startswith("harmonize-ab: error:")]
    assert "--resume: the sides differ" in line and "5us = harmonize HARMONIZE_ARRIVAL=rank:0:5us" in line
    assert not (tmp_path / "log").exists()


@pytest.mark.parametrize("arguments, message", [
    (["--side", "late"], "--side 'late': expected NAME:KEY=VALUE"),
    (["--side", "bad/name:ARRIVAL=none"], "side name 'bad/name'"),
    (["--side", "x:MODE=fast"], "--side 'x:MODE=fast': MODE='fast'"),
    (["--side", "x:ARRIVAL=none", "--side", "x:ARRIVAL=rank:0:1us"], "side 'x' is defined by --side"),
    (["--side", "5us:ARRIVAL=none", "--sweep", "ARRIVAL=rank:0:1us,5us"], "side '5us' is defined by"),
    (["--sweep", "ARRIVAL"], "--sweep 'ARRIVAL': expected KEY=V1,V2"),
    (["--sweep", "ARRIVAL=rank:0:1us,,2us"], "an empty value"),
    (["--side", "x:CONFIG=/no/such/preset"], "side x: preset /no/such/preset: no such file"),
    (["--sweep", "ARRIVAL=rank:0:1us,2us", "--t0", "3us"], "--t0 3us: no such side"),
])
def test_usage_errors_name_the_bad_argument(tmp_path, arguments, message):
    output = tmp_path / "out"
    result = run_ab(output, *arguments, "--", FAKE)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    [line] = [line for line in result.stderr.splitlines() if line.startswith("harmonize-ab: error:")]
    assert message in line
    assert not output.exists()  # nothing was run, nothing written


def test_a_side_is_checked_before_any_run():
    # A pattern the library would refuse, and the variables that need mode harmonize.
    with pytest.raises(ValueError, match="not an arrival pattern"):
        sides.define_side("s", [("HARMONIZE_ARRIVAL", "rank:0")], "--side 's'")
    with pytest.raises(ValueError, match="needs MODE=harmonize"):
        sides.define_side("s", [("HARMONIZE_MODE", "observe"), ("HARMONIZE_ARRIVAL", "rank:0:1us")],
                          "--side 's'")
    with pytest.raises(ValueError, match="needs MODE=harmonize"):
        sides.check_harmonize_only("observe", ["ALTERNATE=1"], "side A")
    sides.check_harmonize_only("observe", ["ARRIVAL=none", "ALTERNATE=0"], "side A")
    # A key after a comma may be lower case, like the first.
    assert sides.split_settings("arrival=rank:0:5us,slack=20us") == \
        [("HARMONIZE_ARRIVAL", "rank:0:5us"), ("HARMONIZE_SLACK", "20us")]


def test_a_communicators_delta_follows_its_own_ranks():
    # The report states delta for MPI_COMM_WORLD; a pattern's ranks are each
    # communicator's, as the library's arrival_delta.
    assert common.communicator_delta("rank:5:10us", 4, 10e-6) == 0.0
    assert common.communicator_delta("rank:1:10us", 4, 10e-6) == 10e-6
    assert common.communicator_delta("ranks:0,1:2us", 2, 2e-6) == 0.0  # all late: nobody
    assert common.communicator_delta("ranks:0,1:2us", 3, 2e-6) == 2e-6
    assert common.communicator_delta("linear:9us", 1, 9e-6) == 0.0
    assert common.communicator_delta("random:9us:3", 4, 9e-6) == 9e-6
    assert common.communicator_delta("node:1:3us", 4, 3e-6) == 3e-6
    assert common.communicator_delta("file:/d.txt", 4, 1e-6) is None
    assert common.communicator_delta("none", 4, 0.0) == 0.0


def test_sides_of_mpi_library_settings_reach_their_runs(tmp_path):
    """One side per collective algorithm (issue 27, item 1): every run gets
    its side's OMPI_MCA_* or MPIR_CVAR_* and the --set for all, interleaved."""
    log = tmp_path / "log"
    result = run_ab(tmp_path / "out", "-n", 2, "--set", "OMPI_MCA_coll_tuned_use_dynamic_rules=1",
                    "--sweep", "OMPI_MCA_coll_tuned_allreduce_algorithm=1,4",
                    "--side", "rd:mpir_cvar_allreduce_intra_algorithm=recursive_doubling",
                    "--", FAKE, "-n", "4", "osu_allreduce", "-f",
                    log=log, extra_env={"FAKE_LOG_MPI_SETTINGS": "1"})
    assert result.returncode == 0, result.stdout + result.stderr
    every = " OMPI_MCA_coll_tuned_use_dynamic_rules=1"
    assert log.read_text().splitlines() == [
        "harmonize none OMPI_MCA_coll_tuned_allreduce_algorithm=1" + every,
        "harmonize none OMPI_MCA_coll_tuned_allreduce_algorithm=4" + every,
        "harmonize none MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling" + every] * 2
    plan = json.loads((tmp_path / "out" / "plan.json").read_text())
    assert plan["sides"] == ["1", "4", "rd"]
    assert plan["settings"]["4"] == ["OMPI_MCA_coll_tuned_allreduce_algorithm=4"]
    assert (tmp_path / "out" / "table.txt").is_file()
