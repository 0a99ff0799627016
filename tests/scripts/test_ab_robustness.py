"""scripts/harmonize-ab when things go wrong (issue 8, items 5 and 11):
interrupted runs (the benchmark's process group must die with them, and a
job that survives anyway can never pass its report off as a rerun's), a full
disk, corrupt or missing files in the output directory, the reason given for
a failed run, and the library table's note when no statistics can be shown.

The benchmark is a small Python stand-in run as a singleton (no launcher, no
MPI): it prints recorded harmonize-example output and writes a recorded
library report where HARMONIZE_REPORT says, so these tests need no build."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
from conftest import PYTHON, SOURCE_DIR, clean_environment  # noqa: E402
from harmonize_tools.ab import jobs, library_stats, tables  # noqa: E402

AB = SOURCE_DIR / "scripts" / "harmonize-ab"
FIXTURES = TESTS / "fixtures"
BENCH_OUTPUT = FIXTURES / "bench" / "example-allreduce.txt"
REPORT = FIXTURES / "reports" / "observe-1.json"
PATIENCE = 60  # seconds: generous, a CPU hog may run beside the tests

FAKE_BENCHMARK = r'''
"""Stand-in benchmark. FAKE_STATE: a directory recording attempts.
FAKE_HANG: the first attempt hangs (to be interrupted); with FAKE_RANK it
forks a "rank" in a process group of its own that ignores SIGTERM (as Open
MPI's ranks have groups of their own); with FAKE_STRAY it also leaves a
process outside the job's session that writes a report to the attempt's
HARMONIZE_REPORT once released (a job that survived whatever was done).
FAKE_STDERR: text for stderr; FAKE_STDOUT_END: text for stdout after the
table (MPICH's launcher prints its banner there); FAKE_EXIT: exit status;
FAKE_FILL: bytes of filler output before the table."""
import json, os, signal, sys, time
from pathlib import Path

state = Path(os.environ["FAKE_STATE"])
state.mkdir(exist_ok=True)
attempt = len(list(state.glob("attempt-*"))) + 1
(state / f"attempt-{attempt}").write_text(str(os.getpid()))
report = os.environ.get("HARMONIZE_REPORT")


def write_report(marker):
    # Like the library: never overwrite, take the next free name.
    path, n = Path(report), 0
    while path.exists():
        n += 1
        path = Path(f"{report[:-len('.json')]}-{n}.json")
    data = json.loads(Path(os.environ["FAKE_REPORT"]).read_text())
    data["job"]["id"] = marker
    path.write_text(json.dumps(data))


def wait_for(path):
    deadline = time.time() + 120
    while not path.exists() and time.time() < deadline:
        time.sleep(0.05)


if attempt == 1 and os.environ.get("FAKE_HANG"):
    if os.environ.get("FAKE_RANK") and os.fork() == 0:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        (state / "rank-pid").write_text(str(os.getpid()))
        time.sleep(600)
        os._exit(0)
    if os.environ.get("FAKE_STRAY") and os.fork() == 0:
        os.setsid()
        (state / "stray-pid").write_text(str(os.getpid()))
        wait_for(state / "release")
        write_report("stale job")
        (state / "stale-written").write_text("")
        os._exit(0)
    time.sleep(600)
    sys.exit(0)
if (state / "stray-pid").exists() and not (state / "release").exists():
    (state / "release").write_text("")
    wait_for(state / "stale-written")
sys.stderr.write(os.environ.get("FAKE_STDERR", ""))
sys.stdout.write("#" * int(os.environ.get("FAKE_FILL", "0")) + "\n")
sys.stdout.write(Path(os.environ["FAKE_OUTPUT"]).read_text())
sys.stdout.write(os.environ.get("FAKE_STDOUT_END", ""))
sys.stdout.flush()
if report and report != "none":
    write_report(f"attempt {attempt}")
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
'''


def stand_in_library():
    """A harmless system library to preload (the runs here test the script, not the library)."""
    for path in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6", "/lib64/libm.so.6",
                 "/lib/aarch64-linux-gnu/libm.so.6"):
        if Path(path).exists():
            return Path(path)
    pytest.skip("no libm to preload as a stand-in")


@pytest.fixture
def bench(tmp_path):
    """(command, environment) of the stand-in benchmark."""
    program = tmp_path / "fake-bench.py"
    program.write_text(FAKE_BENCHMARK)
    env = {k: v for k, v in clean_environment().items() if not k.startswith("HARMONIZE_")}
    env.pop("LD_PRELOAD", None)
    env.update(FAKE_STATE=str(tmp_path / "state"), FAKE_OUTPUT=str(BENCH_OUTPUT), FAKE_REPORT=str(REPORT))
    return [PYTHON, str(program)], env


def ab_arguments(output, command, *extra):
    return [str(AB), "-o", str(output), "--library", str(stand_in_library()), "--no-plots",
            *[str(e) for e in extra], "--", *command]


def run_ab(output, command, env, *extra):
    return subprocess.run(ab_arguments(output, command, *extra), env=env, capture_output=True,
                          text=True, timeout=300)


def error_lines(stderr, prog="harmonize-ab"):
    return [line for line in stderr.splitlines() if line.startswith(f"{prog}: error:")]


def alive(pid):
    """Running (a zombie awaiting its parent counts as dead)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def wait_until(condition, seconds=PATIENCE):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def kill_leftovers(state):
    """Processes the stand-in left (only when a test failed): by their recorded pids."""
    for record in list(state.glob("attempt-*")) + list(state.glob("*-pid")):
        pid = int(record.read_text() or 0)
        if pid and alive(pid):
            os.kill(pid, signal.SIGKILL)


def interrupt_first_run(output, command, env, signum):
    """Start harmonize-ab, wait until the benchmark runs, send `signum` to harmonize-ab only."""
    state = Path(env["FAKE_STATE"])
    process = subprocess.Popen(ab_arguments(output, command, "-n", 1, "--sides", "A"), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        assert wait_until(lambda: (state / "attempt-1").exists() and
                          all((state / f"{kind}-pid").exists() for kind in ("rank", "stray")
                              if env.get(f"FAKE_{kind.upper()}"))), "the benchmark never started"
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=PATIENCE)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, stderr, int((state / "attempt-1").read_text())


# ------------------------------------------------------------------ item 5: interrupts

@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_stops_the_benchmark_job(tmp_path, bench, signum):
    command, env = bench
    env.update(FAKE_HANG="1", FAKE_RANK="1")
    try:
        code, stderr, pid = interrupt_first_run(tmp_path / "out", command, env, signum)
        assert code == 128 + signum, stderr
        assert "interrupted" in stderr and "--resume" in stderr and "Traceback" not in stderr
        # The job is gone (harmonize-ab waited for it), not left running beside the next one:
        # the launcher and the rank that had a process group of its own and ignored SIGTERM.
        rank = int((Path(env["FAKE_STATE"]) / "rank-pid").read_text())
        assert wait_until(lambda: not alive(pid) and not alive(rank), 5), \
            f"benchmark {pid} or its rank {rank} survived the interrupt"
    finally:
        kill_leftovers(Path(env["FAKE_STATE"]))


def test_a_job_that_survived_cannot_pass_its_report_off_as_the_reruns(tmp_path, bench):
    """A rank outside the launcher's process group outlives the interrupt and
    writes its report while the resumed run goes: the rerun keeps its own."""
    command, env = bench
    env.update(FAKE_HANG="1", FAKE_STRAY="1")
    output = tmp_path / "out"
    state = Path(env["FAKE_STATE"])
    try:
        code, stderr, _ = interrupt_first_run(output, command, env, signal.SIGINT)
        assert code == 130, stderr
        resumed = run_ab(output, command, env, "-n", 1, "--sides", "A", "--resume")
        assert resumed.returncode == 0, resumed.stdout + resumed.stderr
        assert (state / "stale-written").exists()  # the survivor did write, during the rerun
        report = json.loads((output / "runs" / "001-A" / "report.json").read_text())
        assert report["job"]["id"] == "attempt 2"
        # Each attempt was told a report path of its own.
        commands = [(output / "runs" / name / "command.txt").read_text() for name in ("001-A.failed-1", "001-A")]
        paths = [next(word for word in text.split() if word.startswith("HARMONIZE_REPORT=")) for text in commands]
        assert paths[0] != paths[1]
        # The survivor's report (issue 25, D8) is flagged: the run measured beside it.
        stray = Path(paths[0].partition("=")[2]).name
        assert (output / "runs" / "001-A" / stray).exists()
        [warning] = json.loads((output / "summary.json").read_text())["warnings"]
        assert warning.startswith(f"run 001-A: {stray} does not belong to its attempt")
        assert "was still running during this run" in warning
        assert f"warning: {warning}" in resumed.stdout
    finally:
        (state / "release").write_text("")
        kill_leftovers(state)


def kill_harmonize_ab_during_the_first_run(output, command, env):
    """Start harmonize-ab, wait until the benchmark runs, SIGKILL harmonize-ab
    only: its job (a session of its own) runs on. Returns the job's pid."""
    state = Path(env["FAKE_STATE"])
    process = subprocess.Popen(ab_arguments(output, command, "-n", 1, "--sides", "A"), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        assert wait_until(lambda: (state / "attempt-1").exists()), "the benchmark never started"
    finally:
        process.kill()
        process.communicate()
    return int((state / "attempt-1").read_text())


def test_resume_refuses_to_run_beside_an_orphaned_job(tmp_path, bench):
    """Issue 25, D8: after `kill -9` of harmonize-ab, --resume ran the rerun
    beside the orphaned job (27.7 s instead of 2.3 s), exit 0, no warning."""
    command, env = bench
    env.update(FAKE_HANG="1")
    output = tmp_path / "out"
    state = Path(env["FAKE_STATE"])
    try:
        pid = kill_harmonize_ab_during_the_first_run(output, command, env)
        assert alive(pid)
        group = os.getpgid(pid)
        resumed = run_ab(output, command, env, "-n", 1, "--sides", "A", "--resume")
        assert resumed.returncode == 2, resumed.stdout + resumed.stderr
        job = json.loads((output / "runs" / "001-A" / "job.json").read_text())
        assert (job["pid"], job["pgid"]) == (group, group) and job["host"] == os.uname().nodename
        [line] = error_lines(resumed.stderr)
        assert f"the job of run 001-A is still running: process group {group}" in line
        assert f"kill -- -{group}" in line and "--stop-stale" in line
        assert not (state / "attempt-2").exists() and alive(pid)
        assert not (output / "runs" / "001-A.failed-1").exists()
        # --stop-stale stops it (SIGTERM to its group), then reruns the run.
        stopped = run_ab(output, command, env, "-n", 1, "--sides", "A", "--resume", "--stop-stale")
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert f"stopped the job of run 001-A (process group {group}" in stopped.stderr
        assert not alive(pid) and (state / "attempt-2").exists()
        assert json.loads((output / "summary.json").read_text())["warnings"] == []
    finally:
        kill_leftovers(state)


def test_a_jobs_ranks_in_sessions_of_their_own_are_counted_as_its_own(tmp_path):
    """MPICH's hydra starts each rank with setsid: the refusal counted "1
    process(es)" and suggested `pkill -s`, which misses them (issue 46.21).
    A job's processes are its session's and their descendants."""
    ready = tmp_path / "ready"
    launcher = subprocess.Popen(
        [sys.executable, "-c", "import os, subprocess, sys, time; "
         "subprocess.Popen([sys.executable, '-c', 'import os, time; os.setsid(); time.sleep(60)']); "
         f"time.sleep(0.5); open({str(ready)!r}, 'w').close(); time.sleep(60)"],
        start_new_session=True)
    try:
        assert wait_until(ready.exists), "the stand-in launcher never started its rank"
        members = jobs.session_members(launcher.pid)
        assert launcher.pid in members and len(members) == 2
        [rank] = [pid for pid in members if pid != launcher.pid]
        assert os.getsid(rank) == rank != launcher.pid
    finally:
        for pid in jobs.session_members(launcher.pid):
            os.kill(pid, signal.SIGKILL)
        launcher.wait()


# ------------------------------------------------------------------ item 11: corrupt and missing files

def finished_directory(tmp_path, bench, runs=2):
    command, env = bench
    output = tmp_path / "out"
    result = run_ab(output, command, env, "-n", runs)
    assert result.returncode == 0, result.stdout + result.stderr
    return output, command, env


def test_corrupt_plan_is_named(tmp_path, bench):
    output, command, env = finished_directory(tmp_path, bench, runs=1)
    (output / "plan.json").write_text('{"command": [')
    for extra in (["--aggregate"], ["--resume", "-n", 1]):
        result = run_ab(output, command, env, *extra)
        assert result.returncode == 2, result.stderr
        lines = error_lines(result.stderr)
        assert len(lines) == 1 and str(output / "plan.json") in lines[0] and "not valid JSON" in lines[0]
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize("damaged", ["status.json", "report.json"])
def test_corrupt_run_file_is_named_then_resume_reruns_the_run(tmp_path, bench, damaged):
    output, command, env = finished_directory(tmp_path, bench)
    path = output / "runs" / "002-A" / damaged
    path.write_text("{ half a fi")
    aggregated = run_ab(output, command, env, "--aggregate")
    assert "Traceback" not in aggregated.stderr
    # The other runs still make a table; the damaged one is listed with the file's name.
    assert "allreduce" in aggregated.stdout
    summary = json.loads((output / "summary.json").read_text())
    assert summary["ok_runs"] == {"A": 1, "B": 2}
    [failure] = summary["failed_runs"]
    assert failure["id"] == "002-A" and str(path) in failure["errors"][0]
    assert "not valid JSON" in failure["errors"][0] and "--resume" in failure["errors"][0]
    assert str(path) in aggregated.stdout
    # --resume reruns it (the damaged attempt set aside), and aggregation then succeeds.
    resumed = run_ab(output, command, env, "-n", 2, "--resume")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert (output / "runs" / "002-A.failed-1" / damaged).exists()
    again = run_ab(output, command, env, "--aggregate")
    assert again.returncode == 0, again.stderr
    summary = json.loads((output / "summary.json").read_text())
    assert summary["ok_runs"] == {"A": 2, "B": 2}
    assert [(f["id"], f["superseded"]) for f in summary["failed_runs"]] == [("002-A.failed-1", True)]


def test_missing_output_of_a_finished_run_is_named(tmp_path, bench):
    output, command, env = finished_directory(tmp_path, bench)
    (output / "runs" / "001-B" / "stdout.txt").unlink()
    result = run_ab(output, command, env, "--aggregate")
    assert "Traceback" not in result.stderr
    summary = json.loads((output / "summary.json").read_text())
    [failure] = summary["failed_runs"]
    assert failure["id"] == "001-B" and str(output / "runs" / "001-B" / "stdout.txt") in failure["errors"][0]


# ------------------------------------------------------------------ item 11: full disk

@pytest.fixture
def small_disk(tmp_path):
    """A 256 KiB tmpfs (root and mount permission needed), unmounted afterwards."""
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount_point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def fill(directory):
    """Fill the file system of `directory` to the last byte."""
    descriptor = os.open(directory / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while os.write(descriptor, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(descriptor)


@pytest.mark.parametrize("when", ["before the first run", "during a run"])
def test_full_disk_is_one_line_and_leaves_no_temporary_file(small_disk, bench, when):
    command, env = bench
    output = small_disk / "out"
    if when == "before the first run":
        fill(small_disk)
    else:
        env["FAKE_FILL"] = str(512 * 1024)  # the run's stdout.txt fills the disk
    result = run_ab(output, command, env, "-n", 1)
    assert "Traceback" not in result.stderr, result.stderr
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert "No space left on device" in lines[0] and str(output) in lines[0]
    assert result.returncode == 4
    assert not list(small_disk.rglob("*.tmp"))


# ------------------------------------------------------------------ item 11: reasons given

@pytest.mark.parametrize("stderr, reason", [
    # The library's summary line comes first (rank 0 finalized before another rank failed).
    ("harmonize: mode=observe 2 ranks 1 node sync=h2hca | MPI_COMM_WORLD: 10 barriers | report r.json\n"
     "bench: cannot open input file 'data.in'\n", "bench: cannot open input file 'data.in'"),
    # harmonize-run's note and a launcher's box come before the program's words.
    ("harmonize-run: note: x is built against Open MPI (needs libmpi.so.40) but ...\n"
     + "-" * 74 + "\nPrimary job  terminated normally, but 1 process returned\n" + "-" * 74 + "\n"
     "bench: out of memory\n", "bench: out of memory"),
    # The library refusing its configuration is the cause.
    ("harmonize: error: HARMONIZE_SLACK='20' is not valid: expected 'auto' or a duration\n",
     "harmonize: error: HARMONIZE_SLACK='20' is not valid"),
    # Nothing but a launcher's box: that is what there is.
    ("-" * 74 + "\nmpiexec noticed that process rank 1 exited on signal 9 (Killed).\n" + "-" * 74 + "\n",
     "mpiexec noticed that process rank 1 exited on signal 9"),
])
def test_failed_run_reason_is_the_programs_error(tmp_path, bench, stderr, reason):
    command, env = bench
    env.update(FAKE_STDERR=stderr, FAKE_EXIT="3")
    result = run_ab(tmp_path / "out", command, env, "-n", 1, "--sides", "A")
    assert result.returncode == 3
    status = json.loads((tmp_path / "out" / "runs" / "001-A" / "status.json").read_text())
    first = status["errors"][0].splitlines()[0]
    assert first.startswith(f"command exited with status 3: {reason}"), first
    assert "FAILED in" in result.stderr and reason in result.stderr


# A rank killed by SIGSEGV (issue 25, D5): recorded on this machine with a
# 2-rank program whose rank 1 raises SIGSEGV (tests/fixtures/crash/).
CRASH = FIXTURES / "crash"
# MPICH's wording with the rank and signal (as quoted in issue 25): MPICH 4.0.2
# here prints only PID and EXIT CODE in its banner.
MPICH_KILLED = ("\n" + "=" * 83 + "\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n"
                "=   RANK 1 PID 8121 RUNNING AT vm\n=   EXIT CODE: 139\n"
                "=   KILLED BY SIGNAL: 11 (Segmentation fault)\n" + "=" * 83 + "\n")


@pytest.mark.parametrize("stderr, stdout_end, status, reason", [
    # Open MPI 4.1.4: its backtrace, the useless "Primary job terminated
    # normally" box, then the box that names the rank and the signal.
    ((CRASH / "openmpi-4.1.4-segv.stderr.txt").read_text(), "", 139,
     "mpiexec.openmpi noticed that process rank 1 with PID 0 on node vm exited on signal 11 "
     "(Segmentation fault)."),
    # MPICH 4.0.2 (UCX): UCX's line on stderr, Hydra's banner on stdout (status 11).
    ((CRASH / "mpich-4-segv.stderr.txt").read_text(), (CRASH / "mpich-4-segv.stdout.txt").read_text(), 11,
     "[vm:8121 :0:8121] Caught signal 11 (Segmentation fault: tkill(2) or tgkill(2) at address 0x1fb9)"),
    # Hydra's banner alone, on stdout, as the issue quotes it: the rank joins the signal.
    ("", MPICH_KILLED, 139, "RANK 1 PID 8121 RUNNING AT vm: KILLED BY SIGNAL: 11 (Segmentation fault)"),
])
def test_a_crashed_rank_is_reported_with_its_rank_and_signal(tmp_path, bench, stderr, stdout_end, status,
                                                             reason):
    command, env = bench
    env.update(FAKE_STDERR=stderr, FAKE_STDOUT_END=stdout_end, FAKE_EXIT=str(status))
    result = run_ab(tmp_path / "out", command, env, "-n", 1, "--sides", "A")
    assert result.returncode == 3
    status_json = json.loads((tmp_path / "out" / "runs" / "001-A" / "status.json").read_text())
    first = status_json["errors"][0].splitlines()[0]
    named = " (128 + 11: SIGSEGV, Segmentation fault)" if status == 139 else ""
    assert first == f"command exited with status {status}{named}: {reason} (see stderr.txt)", first
    assert reason in result.stderr


@pytest.mark.parametrize("code, text", [
    (3, "status 3"), (139, "status 139 (128 + 11: SIGSEGV, Segmentation fault)"),
    (137, "status 137 (128 + 9: SIGKILL, Killed)"), (-9, "killed by signal 9 (SIGKILL, Killed)"),
    (128, "status 128"), (255, "status 255"),
])
def test_exit_status_names_the_signal(code, text):
    from harmonize_tools.ab.failures import describe_exit
    assert describe_exit(code) == text


def summary_with_library(library, modes=None):
    modes = modes or {"A": "observe", "B": "harmonize"}
    return {"sides": list(modes), "modes": modes, "library": library}


def test_library_table_note_says_why_there_are_no_statistics():
    with_comms = library_stats.merge_reports([json.loads(REPORT.read_text())])
    without_comms = dict(json.loads(REPORT.read_text()), communicators=[])
    # Every run has a report, none lists a communicator: not "no report from any run".
    text = tables.library_table(summary_with_library({"A": library_stats.merge_reports([without_comms]),
                                                      "B": library_stats.merge_reports([without_comms] * 2)}))
    assert "no report from any run" not in text
    assert "A observe: 1 report(s)" in text and "B harmonize: 2 report(s)" in text
    assert "no communicator" in text
    # No report at all: said so, with the reasons it can have.
    nothing = tables.library_table(summary_with_library({}))
    assert "no report from any run" in nothing
    # Mode off only: no report is expected.
    off = tables.library_table(summary_with_library({}, {"C": "off"}))
    assert "mode off" in off
    # Side A has statistics, side B's reports list nothing: the table plus a note for B.
    mixed = tables.library_table(summary_with_library({"A": with_comms,
                                                       "B": library_stats.merge_reports([without_comms])}))
    assert "MPI_COMM_WORLD" in mixed and "B harmonize: 1 report(s)" in mixed


# ------------------------------------------------------------------ issue 25, D7: suspicious tables

def test_a_table_that_repeats_a_size_fails_its_run_by_name(tmp_path, bench):
    """It was merged silently: 'A = observe (1 runs ok)' with n 2 at that size."""
    command, env = bench
    table = tmp_path / "repeated.txt"
    lines = BENCH_OUTPUT.read_text().splitlines(keepends=True)
    first_row = next(i for i, line in enumerate(lines) if line.split()[:1] == ["4"])
    table.write_text("".join(lines[:first_row + 2] + [lines[first_row]] + lines[first_row + 2:]))
    env["FAKE_OUTPUT"] = str(table)
    result = run_ab(tmp_path / "out", command, env, "-n", 1, "--sides", "A")
    assert result.returncode == 3, result.stdout + result.stderr
    # The stand-in prints a line before the table: line numbers are one further.
    message = (f"benchmark output: line {first_row + 4}: size 4 of allreduce again (first on line "
               f"{first_row + 2})")
    assert "run 001-A FAILED" in result.stderr and message in result.stderr
    assert f"001-A: {message}" in result.stdout
    assert "(1 runs ok)" not in result.stdout


def test_a_huge_value_keeps_the_table_readable(tmp_path, bench):
    command, env = bench
    table = tmp_path / "huge.txt"
    table.write_text(BENCH_OUTPUT.read_text().replace("\n4                       0.37\n",
                                                      "\n4                       1e308\n"))
    env["FAKE_OUTPUT"] = str(table)
    result = run_ab(tmp_path / "out", command, env, "-n", 1)
    assert result.returncode == 0, result.stdout + result.stderr
    text = (tmp_path / "out" / "table.txt").read_text()
    row = next(line.split() for line in text.splitlines() if line.split()[:1] == ["4"])
    assert row[1] == row[4] == "1.00e+308", row
    assert max(len(line) for line in text.splitlines()) < 200
