"""The harmonized barrier, checked against ground truth.

Every rank reads a test clock with a known offset (+-1 ms) and drift
(+-50 ppm); the untouched machine clock is the truth. The library logs the
true enter and exit times of every call, so the report carries the true exit
skew and the number of calls in which a process left before the last one
entered (which must be zero: a harmonized barrier is still a barrier).

Bounds are for a loaded 2-core machine (other jobs, CI neighbours): they are
an order of magnitude above what a quiet machine shows (docs/benchmarks.md) and
still far below what the native barrier over TCP does.
"""
import json

import pytest

from conftest import MPI_FLAVOR, PROGRAMS, TRANSPORT_PARAMS, TRANSPORTS, run_mpi

TEST_CLOCKS = {"HARMONIZE_TEST_CLOCK_OFFSET": "1ms", "HARMONIZE_TEST_CLOCK_DRIFT": "50ppm",
               "HARMONIZE_TEST_CLOCK_SEED": "7"}


def run_job(tmp_path, mode, nprocs=2, program=("barrier_loop", "3000"), btl=None, extra=None,
            timeout=300):
    tmp_path.mkdir(parents=True, exist_ok=True)
    report = tmp_path / f"{mode}-{btl or 'default'}-{nprocs}.json"
    env = {"HARMONIZE_MODE": mode, "HARMONIZE_REPORT": report, **TEST_CLOCKS, **(extra or {})}
    result = run_mpi(nprocs, [PROGRAMS / program[0], *program[1:]], env=env, btl=btl,
                     timeout=timeout, check=True)
    return json.loads(report.read_text()), result


def communicator(report, name):
    matches = [c for c in report["communicators"] if c["name"] == name]
    assert matches, [c["name"] for c in report["communicators"]]
    return matches[0]


def measure_pair(tmp_path, transport):
    btl, extra = TRANSPORTS[transport]
    native, _ = run_job(tmp_path, "observe", btl=btl, extra=extra)
    harmonized, result = run_job(tmp_path, "harmonize", btl=btl, extra=extra)
    return (communicator(native, "MPI_COMM_WORLD"), communicator(harmonized, "MPI_COMM_WORLD"),
            result.stderr)


def harmonized_better_than_native(native_world, world, transport):
    # Median true skew: the clock and the spin-wait at work (tens of ns on a
    # quiet machine, see docs/benchmarks.md); over TCP the native barrier's is
    # microseconds. Over shared memory it is at the same floor (MPICH's: 73 ns
    # mean), so there the harmonized one need not beat it.
    skew = world["truth_exit_skew"]["p50"]
    return skew < 20e-6 and (transport != "tcp" or skew < native_world["truth_exit_skew"]["p50"])


def flagged_as_not_harmonized(stderr):
    # Whatever the symptom it names (the exit skew, or the share of missed
    # deadlines: 10 % once on MPICH over TCP beside a hog), the warning says
    # the timings are not synchronized.
    return any(line.startswith("harmonize: warning: MPI_COMM_WORLD:") and "not synchronized" in line
               for line in stderr.splitlines())


@pytest.mark.parametrize("transport", TRANSPORT_PARAMS)
def test_harmonized_barrier_is_a_barrier_with_small_true_skew(tmp_path, transport):
    native_world, world, stderr = measure_pair(tmp_path, transport)
    if not harmonized_better_than_native(native_world, world, transport):
        # A spinning process preempted for milliseconds by a neighbour's burst
        # of load ruins a whole run; one fresh pair of runs tells a load spike
        # from a broken barrier (which fails twice).
        native_world, world, stderr = measure_pair(tmp_path / "again", transport)
    assert world["calls"] == 3000 and world["harmonized_calls"] == 3000
    assert world["truth_space_violations"] == 0
    assert world["truth_exit_skew"]["count"] == 3000
    assert 0 <= world["missed_calls_any"] <= world["calls"]
    assert world["failure_rate"] == pytest.approx(world["missed_calls_any"] / 3000)
    # The library's own view agrees with the truth to within its clock error:
    # two clocks, each within its likely bound (over TCP the true error's
    # median is 0.15-0.9 us on this VM, and a flat 1 us once failed by 24 ns).
    assert abs(world["exit_skew"]["p50"] - world["truth_exit_skew"]["p50"]) <= \
        2 * world["clock_error_likely"]["p50"], (world["exit_skew"], world["truth_exit_skew"])
    assert native_world["harmonized_calls"] == 0
    assert native_world["truth_space_violations"] == 0
    # Under sustained load (a CPU hog beside the test) the ranks may really
    # not be running when their deadlines come: then the library must say so
    # rather than print numbers that look fine.
    assert harmonized_better_than_native(native_world, world, transport) or \
        flagged_as_not_harmonized(stderr), (native_world["truth_exit_skew"], world["truth_exit_skew"], stderr)


def test_observe_measures_native_skew_on_the_global_clock(tmp_path):
    report, _ = run_job(tmp_path, "observe", program=("barrier_loop", "5000"))
    world = communicator(report, "MPI_COMM_WORLD")
    assert world["calls"] == 5000 and world["harmonized_calls"] == 0
    assert world["exit_skew"]["count"] == 5000 == world["truth_exit_skew"]["count"]
    # Same skew seen through the synchronized clocks as on the truth.
    assert abs(world["exit_skew"]["p50"] - world["truth_exit_skew"]["p50"]) < 1e-6
    assert report["clock"]["test_clock"]["max_offset"] == pytest.approx(1e-3)


def test_sub_communicator_barriers_never_involve_the_other_ranks(tmp_path):
    # Even ranks barrier on their half while odd ranks only reduce on theirs:
    # a world-wide collective inside the barrier would hang this job.
    # MPICH spins without yielding, so with 4 ranks on 2 cores every message
    # waits for a time slice: fewer calls there, same checks.
    barriers, loops = ("300", "90") if MPI_FLAVOR == "mpich" else ("2000", "200")
    report, result = run_job(tmp_path, "harmonize", nprocs=4, program=("subcomm", barriers, loops),
                             extra={"HARMONIZE_RESYNC_INTERVAL": "1ms"}, timeout=600)
    even = communicator(report, "even")
    assert even["size"] == 2 and even["calls"] == int(barriers) == even["harmonized_calls"]
    assert even["resyncs"] >= 1  # on its own members, with a 1 ms interval
    assert even["truth_space_violations"] == 0
    assert not [c for c in report["communicators"] if c["name"] == "odd"]
    # Create/free loop: records are bounded (folded) and memory does not grow.
    folded = [c for c in report["communicators"] if "(folded)" in c["name"]]
    assert len(folded) == 1 and folded[0]["calls"] > 0
    assert len(report["communicators"]) < 80
    growth = [int(line.split()[4]) for line in result.stdout.splitlines() if "resident growth" in line]
    assert len(growth) == 4 and max(growth) < 1024, result.stdout


def test_threads_on_different_communicators(tmp_path):
    report, result = run_job(tmp_path, "harmonize", program=("threads", "300"))
    if "not provided" in result.stdout:
        pytest.skip("MPI library without MPI_THREAD_MULTIPLE")
    for name in ("thread-0", "thread-1"):
        comm = communicator(report, name)
        assert comm["calls"] == 300 and comm["truth_space_violations"] == 0


def test_eight_ranks_on_two_cores_complete(tmp_path):
    report, _ = run_job(tmp_path, "harmonize", nprocs=8, program=("barrier_loop", "100"),
                        extra={"HARMONIZE_TEST_NODE_SIZE": "2"}, timeout=600)
    world = communicator(report, "MPI_COMM_WORLD")
    assert world["calls"] == 100 and world["size"] == 8
    assert world["truth_space_violations"] == 0
    assert len(world["missed_events_per_rank"]) == 8
    assert report["clock"]["sync_nodes"] == 4


def test_comms_world_leaves_other_communicators_alone(tmp_path):
    report, _ = run_job(tmp_path, "harmonize", nprocs=2, program=("subcomm", "50", "10"),
                        extra={"HARMONIZE_COMMS": "world"})
    assert [c["name"] for c in report["communicators"]] == ["MPI_COMM_WORLD"]


def test_explicit_mpix_harmonize_in_mode_off():
    result = run_mpi(2, [PROGRAMS / "explicit_harmonize", "64"], check=True)
    line = next(row for row in result.stdout.splitlines() if row.startswith("explicit:"))
    fields = dict(item.split("=") for item in line.split()[1:] if "=" in item)
    assert fields["before"] == "-1"  # no harmonized barrier yet
    assert fields["self_flag"] == "1"
    assert 0 <= int(fields["valid"]) <= 64
    assert "harmonize:" not in result.stderr  # mode off: no report, no summary


def test_explicit_mpix_harmonize_is_counted_in_harmonize_mode(tmp_path):
    report_path = tmp_path / "explicit.json"
    result = run_mpi(2, [PROGRAMS / "explicit_harmonize", "64"], preload=False,
                     env={"HARMONIZE_MODE": "harmonize", "HARMONIZE_REPORT": report_path, **TEST_CLOCKS},
                     check=True)
    assert "valid=" in result.stdout
    report = json.loads(report_path.read_text())
    world = communicator(report, "MPI_COMM_WORLD")
    assert world["harmonized_calls"] == 64
    assert world["truth_space_violations"] == 0
    # MPI_COMM_SELF of both processes: one aggregate entry, not one per
    # process, whose calls add both processes' up.
    selves = [c for c in report["communicators"] if c["kind"] == "self"]
    assert len(selves) == 1 and selves[0]["calls"] == 2
    assert selves[0]["truth_space_violations"] is None


def test_late_communicator_slack_is_not_its_clock_error(tmp_path):
    # 3 s after the world sync an offset-only clock on +-100 ppm clocks is off
    # by up to 600 us; measuring the slack on it would make every call wait
    # about that long.
    def run(directory):
        report, _ = run_job(directory, "harmonize", program=("late_comm", "3", "300"),
                            extra={"HARMONIZE_TEST_CLOCK_DRIFT": "100ppm"})
        return communicator(report, "late")

    late = run(tmp_path)
    if late["slack"]["initial"] >= 100e-6 or late["time_in_call"]["p50"] >= 100e-6:
        # A load spike during the 32 latency rounds inflates the slack once;
        # an aged clock would inflate it every time.
        late = run(tmp_path / "again")
    assert late["calls"] == 300 and late["truth_space_violations"] == 0
    assert late["slack"]["initial"] < 100e-6
    assert late["time_in_call"]["p50"] < 100e-6


@pytest.mark.parametrize("seed", ["1", "2", "3"])
def test_negative_global_time_is_not_a_resync_request(tmp_path, seed):
    # MPI_Wtime starts near 0, so a -5 s test offset makes global time negative.
    report, _ = run_job(tmp_path / seed, "harmonize", program=("barrier_loop", "2000"),
                        extra={"HARMONIZE_TIMESOURCE": "wtime", "HARMONIZE_TEST_CLOCK_OFFSET": "5s",
                               "HARMONIZE_TEST_CLOCK_SEED": seed})
    world = communicator(report, "MPI_COMM_WORLD")
    assert world["calls"] == 2000
    assert world["resyncs"] < 100
