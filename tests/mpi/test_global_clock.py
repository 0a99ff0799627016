"""The global clock lent to programs (issue 28): MPIX_Harmonize_gettime and
HARMONIZE_WTIME=global, which makes an unmodified program's MPI_Wtime the
global clock and MPI_WTIME_IS_GLOBAL read 1.

Ground truth: every rank runs on its own test clock (offsets up to 5 ms,
drifts up to 50 ppm) and the program (wtime_truth.c) stamps MPI_Wtime after
each barrier between two reads of the untouched clock, every 5 ms. World
rank 0's clock is the global clock's reference: on the truth it is a line
(its test offset and drift), fitted from its own samples. Every other rank's
MPI_Wtime must lie on that line within the bound the library gave for it
(MPIX_Harmonize_gettime, read with it), plus the gap between the two truth
reads around them (a process preempted there is as late as the gap says).
Rank 1's own clock is milliseconds off rank 0's, and the MPI library's own
MPI_Wtime is off the global clock (test_local_mpi_wtime_is_left_alone): an
MPI_Wtime that missed either would fail.
"""
import json

import pytest

from conftest import (MPI_FLAVOR, PROGRAMS, PYTHON, SOURCE_DIR, rerun_until, run_mpi, skip_unless_mpi4py_matches,
                      world_of)

TEST_CLOCKS = {"HARMONIZE_TEST_CLOCK_OFFSET": "5ms", "HARMONIZE_TEST_CLOCK_DRIFT": "50ppm",
               "HARMONIZE_TEST_CLOCK_SEED": "3"}
TRANSPORTS = {"shm": "self,vader", "tcp": "self,tcp"} if MPI_FLAVOR == "openmpi" else {"shm": None}
# What a read of the reference line itself may be off by: the fit's own
# residuals on a loaded machine (rank 0's samples have gaps too).
FIT_ALLOWANCE = 0.5e-6


def samples(stdout):
    """{rank: [(truth before, truth after, MPI_Wtime, bound, gettime's time)]}"""
    found = {}
    for line in stdout.splitlines():
        if line.startswith("sample "):
            words = line.split()
            found.setdefault(int(words[1]), []).append(tuple(float(w) for w in words[3:8]))
    return found


def facts(stdout):
    """{'before_init': status, 'inside': ..., 'after_finalize': ..., 'wtime_is_global': (flag, value)}"""
    found = {}
    for line in stdout.splitlines():
        words = line.split()
        if words[:1] == ["gettime"]:
            found[words[1]] = int(words[2])
        elif words[:1] == ["wtime_is_global"]:
            found["wtime_is_global"] = (int(words[1]), int(words[2]))
    return found


def reference_line(points):
    """Least squares of MPI_Wtime on the mid truth over rank 0's samples whose
    truth reads are closest together (half of them: preempted ones left out)."""
    points = sorted(points, key=lambda p: p[1] - p[0])[:max(3, len(points) // 2)]
    xs = [(a + b) / 2 for a, b, *_ in points]
    ys = [w for _, _, w, *_ in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return lambda x: my + slope * (x - mx)


def run_truth(mode, wtime, btl, calls=40, extra=None):
    env = {"HARMONIZE_MODE": mode, "HARMONIZE_WTIME": wtime, "HARMONIZE_REPORT": "none",
           "HARMONIZE_QUIET": "1", **TEST_CLOCKS, **(extra or {})}
    return run_mpi(2, [PROGRAMS / "wtime_truth", str(calls), "5"], env=env, btl=btl, check=True)


def assert_on_the_reference_within_bounds(by_rank):
    reference = reference_line(by_rank[0])
    for before, after, wtime, bound, gettime in by_rank[1]:
        # MPI_Wtime is the clock MPIX_Harmonize_gettime reads, a moment later
        # (both between the truth reads; the clocks' rates differ by 100 ppm).
        assert -1e-9 <= gettime - wtime <= (after - before) * 1.001 + 1e-9, (wtime, gettime)
        assert bound > 0
        error = wtime - reference((before + after) / 2)
        assert abs(error) <= bound + (after - before) + FIT_ALLOWANCE, (error, bound, after - before)


@pytest.mark.parametrize("mode", ["observe", "harmonize"])
@pytest.mark.parametrize("transport", list(TRANSPORTS))
def test_mpi_wtime_is_the_global_clock_within_its_bound(transport, mode):
    # Beside heavy load a sync can take half a second and bound the clock by
    # milliseconds, honestly, but then the bound would hide the test clocks'
    # offsets it is meant to catch: judged on a run whose median bound is
    # tight, if the machine gives one within a minute (else on the last).
    def tight(result):
        bounds = sorted(s[3] for s in samples(result.stdout).get(1, []))
        return bool(bounds) and bounds[len(bounds) // 2] < 50e-6

    result = rerun_until(lambda: run_truth(mode, "global", TRANSPORTS[transport]), tight)
    found = facts(result.stdout)
    assert found["wtime_is_global"] == (1, 1)
    assert found["inside"] == 0
    # No global clock before MPI_Init or after MPI_Finalize: an error code.
    assert found["before_init"] != 0 and found["after_finalize"] != 0
    by_rank = samples(result.stdout)
    assert sorted(by_rank) == [0, 1] and len(by_rank[1]) == 40
    assert_on_the_reference_within_bounds(by_rank)
    assert tight(result), "no run with a tight clock: the check above could not see the test offsets"


def test_observe_resyncs_between_sparse_barriers(tmp_path):
    """Observe mode agrees on nothing but at its log flushes, once every 512
    barriers: with a barrier every 5 ms it resynced every 2.6 s against an
    interval of 1 s, and the bound programs read aged to 256 us (the true
    error stayed below 1 us). Now the next flush is set where the clock
    expires."""
    report = tmp_path / "report.json"
    result = run_truth("observe", "global", TRANSPORTS["shm"], calls=120,
                       extra={"HARMONIZE_RESYNC_INTERVAL": "100ms", "HARMONIZE_REPORT": report})
    world = world_of(json.loads(report.read_text()))
    # 120 x 5 ms: syncs due 10, 40, 130, 230, 330, 430 and 530 ms after the first.
    assert world["resyncs"] >= 6
    assert_on_the_reference_within_bounds(samples(result.stdout))


def test_local_mpi_wtime_is_left_alone():
    """The default: MPI_Wtime is the MPI library's own (not the global clock,
    which runs milliseconds off it here), and MPI_WTIME_IS_GLOBAL is what the
    library says."""
    native = run_mpi(2, [PROGRAMS / "wtime_truth", "3", "1"], preload=False, check=True)
    local = run_truth("observe", "local", TRANSPORTS["shm"], calls=3)
    assert facts(local.stdout)["wtime_is_global"] == facts(native.stdout)["wtime_is_global"]
    assert facts(local.stdout)["inside"] == 0  # the API works whatever MPI_Wtime is
    for before, after, wtime, bound, gettime in samples(local.stdout)[1]:
        assert abs(gettime - wtime) > 10e-6, "MPI_Wtime was the global clock"


def test_gettime_is_an_error_without_a_global_clock():
    result = run_mpi(2, [PROGRAMS / "wtime_truth", "2", "1"], env={"HARMONIZE_MODE": "off"}, check=True)
    found = facts(result.stdout)
    assert found["inside"] != 0 and found["before_init"] != 0
    assert all(bound == -1 for *_, bound, _ in samples(result.stdout)[0])


@pytest.mark.parametrize("program", ["wtime_mpif", "wtime_f08"])
def test_fortran_mpi_wtime_and_gettime(program):
    path = PROGRAMS / program
    if not path.exists():
        pytest.skip("built without MPI Fortran support")

    def read(wtime):
        env = {"HARMONIZE_MODE": "observe", "HARMONIZE_WTIME": wtime, "HARMONIZE_REPORT": "none",
               "HARMONIZE_QUIET": "1", **TEST_CLOCKS}
        line = next(line for line in run_mpi(2, [path], env=env, check=True).stdout.splitlines()
                    if line.startswith("fortran gettime"))
        status, wtime_value, time, bound = line.split()[2:]
        return int(status), float(wtime_value), float(time), float(bound)

    status, wtime, time, bound = read("global")
    assert status == 0 and 0 <= bound < 50e-6
    assert 0 <= time - wtime < 1e-3
    status, wtime, time, _ = read("local")
    assert status == 0 and abs(time - wtime) > 10e-6


def test_mpi4py_sees_the_global_clock():
    skip_unless_mpi4py_matches()
    script = SOURCE_DIR / "tests" / "mpi" / "programs" / "wtime_mpi4py.py"

    def read(wtime):
        env = {"HARMONIZE_MODE": "observe", "HARMONIZE_WTIME": wtime, "HARMONIZE_REPORT": "none",
               "HARMONIZE_QUIET": "1", **TEST_CLOCKS}
        lines = run_mpi(2, [PYTHON, script], env=env, check=True).stdout.splitlines()
        is_global = next(line.split()[-1] for line in lines if line.startswith("mpi4py wtime_is_global"))
        words = next(line for line in lines if line.startswith("mpi4py sandwich")).split()[2:]
        return is_global, [float(w) for w in words[:3]], int(words[3])

    # MPI.Wtime is the clock MPIX_Harmonize_gettime reads: its reading lies
    # between two of MPI.Wtime's, however long the process was away.
    is_global, (before, between, after), status = read("global")
    assert is_global == "True" and status == 0
    assert before <= between <= after
    is_global, (before, between, after), status = read("local")
    assert is_global == "False" and status == 0
    assert not before <= between <= after
