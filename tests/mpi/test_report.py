"""The JSON report and the summary line: schema, consistency, no overwrite."""
import json
import subprocess

from conftest import LIBRARY, PROGRAMS, clean_environment, mpiexec_command, run_mpi

DISTRIBUTION_KEYS = {"count", "mean", "min", "p50", "p90", "p99", "max"}


def run(env, nprocs=2, calls="500"):
    return run_mpi(nprocs, [PROGRAMS / "barrier_loop", calls], env=env, check=True)


def check_distribution(value):
    assert set(value) == DISTRIBUTION_KEYS
    assert value["count"] == 0 or value["min"] <= value["p50"] <= value["p90"] <= value["p99"] <= value["max"]


def test_report_schema_and_consistency(tmp_path):
    path = tmp_path / "r.json"
    result = run({"HARMONIZE_MODE": "harmonize", "HARMONIZE_REPORT": path, "HARMONIZE_SLACK": "20us"})
    report = json.loads(path.read_text())
    assert report["version"] == 1 and report["mode"] == "harmonize"
    assert report["job"]["ranks"] == 2 and report["job"]["nodes"] == 1
    assert "barrier_loop" in report["job"]["program"]
    assert report["config"]["HARMONIZE_SLACK"] == "20us"
    assert report["config"]["HARMONIZE_MODE"] == "harmonize"
    clock = report["clock"]
    assert clock["scheme"] == "h2hca" and clock["sync_count"] >= 1
    assert 0 < clock["initial_sync_seconds"] < 1
    assert clock["test_clock"] is None
    world = report["communicators"][0]
    assert world["name"] == "MPI_COMM_WORLD" and world["size"] == 2 and world["kind"] == "intra"
    assert world["calls"] == 500 == world["harmonized_calls"]
    assert world["missed_calls_any"] <= world["calls"]
    assert len(world["missed_events_per_rank"]) == 2
    assert max(world["missed_events_per_rank"]) <= world["missed_calls_any"]
    assert world["slack"]["initial"] == 20e-6
    assert world["slack"]["min"] <= world["slack"]["final"] <= world["slack"]["max"]
    for key in ("exit_skew", "lateness", "wait", "time_in_call", "need"):
        check_distribution(world[key])
    assert world["exit_skew"]["count"] == 500
    # A call's need travels with the next call and is counted at the one
    # after: the last two calls' are not; nor is a need lost to a resync. A
    # resync counts the previous call's need at once: in the last call, 499.
    assert 500 - 2 - world["resyncs"] <= world["need"]["count"] <= 498 + min(world["resyncs"], 1)
    assert world["time_in_call"]["count"] == 1000  # both ranks
    summary = [line for line in result.stderr.splitlines() if line.startswith("harmonize: mode=harmonize")]
    assert len(summary) == 1 and "MPI_COMM_WORLD: 500 barriers" in summary[0] and str(path) in summary[0]


def test_existing_report_is_never_overwritten(tmp_path):
    path = tmp_path / "same.json"
    env = {"HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": path}
    run(env, calls="10")
    first = path.read_text()
    result = run(env, calls="20")
    assert path.read_text() == first
    second = tmp_path / "same-1.json"
    assert json.loads(second.read_text())["communicators"][0]["calls"] == 20
    assert f"{path} exists, not overwritten; report written to {second}" in result.stderr


def test_report_template_and_quiet(tmp_path):
    result = run({"HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": tmp_path / "job-%j.json",
                  "HARMONIZE_QUIET": "1"})
    files = list(tmp_path.glob("job-*.json"))
    assert len(files) == 1 and files[0].name[4:-5].isdigit()
    assert "harmonize:" not in result.stderr


def test_report_none_writes_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run({"HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": "none"})
    assert not list(tmp_path.iterdir())
    assert "report none" in result.stderr or "harmonize: mode=observe" in result.stderr


def test_mode_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run({})
    assert not list(tmp_path.iterdir()) and "harmonize" not in result.stderr


def test_a_high_miss_rate_is_flagged():
    # A slack held at 1 ns cannot be met: every call misses, and the user is
    # told the harmonized timings are not to be trusted.
    result = run({"HARMONIZE_MODE": "harmonize", "HARMONIZE_REPORT": "none", "HARMONIZE_QUIET": "1",
                  "HARMONIZE_SLACK": "1ns", "HARMONIZE_SLACK_MIN": "1ns", "HARMONIZE_SLACK_MAX": "1ns"})
    warnings = [line for line in result.stderr.splitlines() if line.startswith("harmonize: warning:")]
    assert len(warnings) == 1
    assert "MPI_COMM_WORLD: 100.0% of harmonized barriers missed their deadline" in warnings[0]


def test_a_normal_run_has_no_warning(tmp_path):
    # On a quiet machine nothing is wrong; with a CPU hog beside the test the
    # barriers may really not harmonize, and then the warning is right.
    report_path = tmp_path / "report.json"
    result = run({"HARMONIZE_MODE": "harmonize", "HARMONIZE_REPORT": report_path})
    world = json.loads(report_path.read_text())["communicators"][0]
    # The warning's own rule (report/harmonization_warning.hpp): late exits
    # above 5 % warn as well as misses.
    harmonized = (world["exit_skew"]["p50"] <= 2e-6 and world["failure_rate"] <= 0.05 and
                  world["late_rate"] <= 0.05)
    assert ("warning" in result.stderr) == (not harmonized), result.stderr


# --- issue 25, D6: a report that cannot be written where asked ---------------

def summary_of(stderr):
    return [line for line in stderr.splitlines() if line.startswith("harmonize: mode=")]


def test_report_whose_directory_vanished_goes_to_the_working_directory(workdir):
    out = workdir / "out"
    out.mkdir()
    result = run_mpi(2, [PROGRAMS / "report_dir_vanishes", "20", "-", out], check=True, env={
        "HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": out / "r-%j.json"})
    assert not out.exists()
    saved = list(workdir.glob("r-*.json"))
    assert len(saved) == 1, result.stderr
    report = json.loads(saved[0].read_text())
    assert report["communicators"][0]["calls"] == 21
    errors = [line for line in result.stderr.splitlines() if line.startswith("harmonize: error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith(f"harmonize: error: cannot write the report to {out}/r-")
    assert "No such file or directory" in errors[0]
    assert errors[0].endswith(f"; written to {saved[0]} instead"), errors[0]
    assert summary_of(result.stderr)[0].endswith(f"| report {saved[0]}")


def test_report_to_a_full_disk_goes_to_the_working_directory(workdir):
    result = run_mpi(2, [PROGRAMS / "barrier_loop", "5"], check=True, env={
        "HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": "/dev/full"})
    saved = list(workdir.glob("harmonize-*.json"))
    assert len(saved) == 1, result.stderr
    assert json.loads(saved[0].read_text())["mode"] == "observe"
    errors = [line for line in result.stderr.splitlines() if line.startswith("harmonize: error:")]
    assert errors == [f"harmonize: error: cannot write the report to /dev/full: cannot write "
                      f"/dev/full: No space left on device; written to {saved[0]} instead"], \
        result.stderr


def test_report_written_nowhere_is_said_to_be_lost(tmp_path):
    # The report's directory and the working directory both vanish, and
    # TMPDIR names no directory: every place fails.
    work = tmp_path / "work"
    out = work / "out"
    out.mkdir(parents=True)
    env = clean_environment(HARMONIZE_MODE="observe", HARMONIZE_REPORT=str(out / "r.json"),
                            LD_PRELOAD=str(LIBRARY))
    cmd = mpiexec_command(2, [str(PROGRAMS / "report_dir_vanishes"), "5",
                              str(tmp_path / "no-such-tmpdir"), str(out), str(work)])
    result = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True, timeout=120)
    assert "program done" in result.stdout, result.stderr
    assert not list(tmp_path.rglob("*.json"))
    errors = [line for line in result.stderr.splitlines() if line.startswith("harmonize: error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith(f"harmonize: error: cannot write the report to {out}/r.json: ")
    assert f"; nor to {tmp_path}/no-such-tmpdir/r.json: " in errors[0]
    assert errors[0].endswith(f"; the report {out}/r.json is lost (its content was not written "
                              "anywhere)"), errors[0]
    assert summary_of(result.stderr)[0].endswith(f"| report lost: {out}/r.json not written")


# --- issue 25, minor (c): the nodes of the line are the library's ------------

def test_virtual_nodes_are_the_nodes_of_the_line(tmp_path):
    path = tmp_path / "r.json"
    result = run({"HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": path,
                  "HARMONIZE_TEST_NODE_SIZE": "2"}, nprocs=4, calls="10")
    report = json.loads(path.read_text())
    hosts = len(report["job"]["hosts"])
    assert report["job"]["nodes"] == 2
    line = summary_of(result.stderr)[0]
    expected = "4 ranks 2 nodes" + ("" if hosts == 2 else f" ({hosts} host{'s' if hosts > 1 else ''})")
    assert line.startswith(f"harmonize: mode=observe {expected} "), line


# --- issue 26: the records merged up a tree, and a message of it lost --------

def test_a_lost_message_of_the_merge_is_named_and_the_rest_reported(tmp_path):
    """World rank 0's receive of ranks 2-3's records fails (a preloaded shim):
    one line names them and the message, the report keeps ranks 0-1 and says
    what is missing; nothing hangs."""
    path = tmp_path / "r.json"
    shim = PROGRAMS / "libfail_tree_recv.so"
    env = clean_environment(HARMONIZE_MODE="observe", HARMONIZE_REPORT=str(path),
                            LD_PRELOAD=f"{shim}:{LIBRARY}")
    cmd = mpiexec_command(5, [str(PROGRAMS / "barrier_loop"), "20"])
    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("harmonize: error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith(
        "harmonize: error: the report lacks the records of world ranks 2-3 (message 2 to world "
        "rank 0 in the merge over the library's copy of MPI_COMM_WORLD): PMPI_Recv failed: "), errors[0]
    report = json.loads(path.read_text())
    assert report["missing_records"] == [errors[0].split("records of ", 1)[1]]
    world = next(c for c in report["communicators"] if c["name"] == "MPI_COMM_WORLD")
    # Ranks 0, 1 and 4 (rank 4 is rank 0's third subtree) are in.
    assert len(world["missed_events_per_rank"]) == 3
    assert world["time_in_call"]["count"] == 3 * 20


def test_a_complete_report_says_nothing_is_missing(tmp_path):
    path = tmp_path / "r.json"
    run({"HARMONIZE_MODE": "observe", "HARMONIZE_REPORT": path}, nprocs=5, calls="20")
    report = json.loads(path.read_text())
    assert "missing_records" not in report
    world = next(c for c in report["communicators"] if c["name"] == "MPI_COMM_WORLD")
    assert len(world["missed_events_per_rank"]) == 5
    assert world["time_in_call"]["count"] == 5 * 20
