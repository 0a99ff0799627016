"""Non-blocking collectives (issue 29): every MPI_I<collective> of an
unmodified program stamped at its start and at the call that completes its
request (MPI_Wait, MPI_Test and their any/some/all forms), matched across the
members on the global clock like the blocking ones, with the overlap each
process achieved (the start's return to the completing call's entry).

Ground truth as for the blocking timer (test_collectives.py): each rank on
its own test clock, the program stamping the untouched clock around the
start and the completing call, rank 1 starting a known time late and every
process working a known time between start and wait.
"""
import json

import pytest

from conftest import (PROGRAMS, PYTHON, SOURCE_DIR, TRANSPORT_PARAMS, TRANSPORTS, find_number,
                      harmonize_lines, keys_of, skip_unless_mpi4py_matches, timed_report, world_of)

TEST_CLOCKS = {"HARMONIZE_TEST_CLOCK_OFFSET": "1ms", "HARMONIZE_TEST_CLOCK_DRIFT": "50ppm",
               "HARMONIZE_TEST_CLOCK_SEED": "29"}
CALLS = 300
DELAY = 200e-6
WORK = 100e-6
STAMP_GAP = 2e-6  # program's stamp -> library's, both ways, on a loaded machine
FOLLOWED = 1024  # CollectiveTimer::kMaxOpen


def report_of(tmp_path, name, program, **options):
    return timed_report(tmp_path, name, program, clocks=TEST_CLOCKS, **options)


def truth_of(stdout):
    words = next(row for row in stdout.splitlines() if row.startswith("truth ")).split()
    return {words[i]: tuple(float(w) for w in words[i + 1:i + 4]) for i in (1, 5)}


@pytest.mark.parametrize("transport", TRANSPORT_PARAMS)
def test_arrival_skew_t_global_and_overlap_agree_with_the_truth(tmp_path, transport):
    btl, extra = TRANSPORTS[transport]
    report, result = report_of(
        tmp_path, "truth",
        [PROGRAMS / "nonblocking_truth", str(CALLS), str(DELAY * 1e6), "1", str(WORK * 1e6)],
        btl=btl, extra=extra)
    truth = truth_of(result.stdout)
    world = world_of(report)
    collectives = world["collectives"]
    assert collectives["calls_unmatched"] == 0
    assert set(collectives["nonblocking_not_completed"].values()) == {0}
    keys = keys_of(world)
    assert set(keys) == {("iallreduce", 8, None), ("ibcast", 1024, 1)}
    for (operation, _, _), key in keys.items():
        assert key["calls"] == CALLS
        assert key["local"]["count"] == key["overlap"]["count"] == 2 * CALLS
        true_skew, true_t_global, true_overlap = truth[operation]
        tolerance = 2 * key["clock_error_bound"] + STAMP_GAP
        assert abs(key["arrival_skew"]["p50"] - true_skew) <= tolerance, (key, truth)
        assert abs(key["t_global"]["p50"] - true_t_global) <= tolerance, (key, truth)
    # The overlap is one process's own interval: no clock error in it. The
    # ibcast's is the polling until MPI_Test completes it, near 0 on the
    # root and the transfer's length elsewhere: a median between two
    # clusters says nothing, its count does (above).
    iallreduce = keys[("iallreduce", 8, None)]
    assert abs(iallreduce["overlap"]["p50"] - truth["iallreduce"][2]) <= STAMP_GAP, truth
    assert iallreduce["overlap"]["p50"] > 0.9 * WORK
    # The late start is what the iallreduce sees arrive (give or take the
    # barrier's exit skew), and it completes after the work on every process.
    assert iallreduce["arrival_skew"]["p50"] > 0.9 * DELAY
    assert iallreduce["t_global"]["p50"] > 0.9 * (DELAY + WORK)
    # Valid: started right after a harmonized barrier every member left in
    # time; the ibcast follows another collective.
    assert 0 < iallreduce["valid_calls"] <= CALLS
    assert iallreduce["valid"]["overlap"]["count"] == 2 * iallreduce["valid_calls"]
    assert keys[("ibcast", 1024, 1)]["valid_calls"] == 0


def test_the_overlaps_that_worked_and_those_that_waited_are_reported_apart(tmp_path):
    """One key, two loops (OSU's pure and compute loops): every other call
    waits right after its start. The median of the mix says neither; each
    population's says its own."""
    report, _ = report_of(tmp_path, "populations",
                          [PROGRAMS / "nonblocking_truth", str(CALLS), "0", "1", str(WORK * 1e6), "1"],
                          extra={"HARMONIZE_TRACE": tmp_path / "trace.json"})
    iallreduce = keys_of(world_of(report))[("iallreduce", 8, None)]
    worked, waited = iallreduce["overlap_worked"], iallreduce["overlap_waited"]
    # 2 processes, half the calls each. A call preempted between its start
    # and its wait (or the first, which warms the program up) has worked;
    # one that worked but then waited long for a peer descheduled by a load
    # beside the test (a CPU hog: 2 in 300 once) falls under the 30 % share
    # and counts as waited, as the rule says it should.
    assert worked["count"] + waited["count"] == 2 * CALLS
    assert 0.9 * CALLS <= waited["count"] <= 1.1 * CALLS, (worked, waited)
    assert abs(worked["p50"] - WORK) <= STAMP_GAP, worked
    assert waited["p50"] <= STAMP_GAP, waited
    assert worked["count"] + waited["count"] == iallreduce["overlap"]["count"]
    # The timeline carries each call's overlap and its population.
    events = json.loads((tmp_path / "trace.json").read_text())["traceEvents"]
    calls = [e["args"] for e in events if e.get("name") == "MPI_Iallreduce"]
    assert calls and all("overlap_us" in args for args in calls)
    assert sum(args["overlap_worked"] for args in calls) == worked["count"]


def test_every_way_a_request_ends_is_counted_never_matched_as_completed(tmp_path):
    calls, many = 40, 2000
    report, result = report_of(tmp_path, "endings",
                               [PROGRAMS / "nonblocking_endings", str(calls), str(many)])
    assert f"done {calls} {many}" in result.stdout
    world = world_of(report)
    keys = keys_of(world)
    # Completed by MPI_Waitall beside point-to-point requests, by MPI_Waitany,
    # by MPI_Testsome and by MPI_Testall.
    for key in [("iallreduce", 8, None), ("igather", 4, 0), ("ialltoall", 4, None),
                ("iscan", 4, None)]:
        assert keys[key]["calls"] == calls, key
        assert keys[key]["overlap"]["count"] == 2 * calls
    not_completed = world["collectives"]["nonblocking_not_completed"]
    # The MPI_Ibarrier still open at a barrier's matching: counted by each
    # member, matched otherwise.
    open_at_matching = not_completed["open_at_matching"]
    assert open_at_matching > 0 and open_at_matching % 2 == 0
    assert keys[("ibarrier", 0, None)]["calls"] + open_at_matching // 2 == calls
    # The burst: as many followed as the table holds (the last MPI_Ibarrier
    # holds one place), the rest counted on each member.
    assert keys[("ibcast", 4, 0)]["calls"] == FOLLOWED - 1
    assert not_completed["untracked"] == 2 * (many - (FOLLOWED - 1))
    assert world["collectives"]["calls_unmatched"] == 0
    assert f"{open_at_matching + not_completed['untracked']} non-blocking not completed" in \
        result.stderr


def test_two_threads_on_two_communicators_are_each_matched(tmp_path):
    report, result = report_of(tmp_path, "threads", [PROGRAMS / "nonblocking_threads", "500"])
    if "not provided" in result.stdout:
        pytest.skip("this MPI does not provide MPI_THREAD_MULTIPLE")
    copies = [c for c in report["communicators"] if c["name"].startswith("comm#")]
    assert len(copies) == 2
    for copy in copies:
        assert copy["collectives"]["calls_unmatched"] == 0
        assert keys_of(copy)[("iallreduce", 8, None)]["calls"] == 500


def test_observe_mode_times_them_and_calls_none_valid(tmp_path):
    report, _ = report_of(tmp_path, "observe",
                          [PROGRAMS / "nonblocking_truth", "100", "50", "1", "20"], mode="observe")
    keys = keys_of(world_of(report))
    assert keys[("iallreduce", 8, None)]["calls"] == 100
    assert keys[("ibcast", 1024, 1)]["calls"] == 100
    assert all(k["valid_calls"] == 0 for k in keys.values())


def test_the_policy_chooses_what_is_timed(tmp_path):
    report, _ = report_of(tmp_path, "some", [PROGRAMS / "nonblocking_truth", "50", "10", "1", "5"],
                          extra={"HARMONIZE_COLLECTIVES": "MPI_Ibcast"})
    assert set(keys_of(world_of(report))) == {("ibcast", 1024, 1)}


def test_mpi4py_nonblocking_collectives_are_timed(tmp_path):
    # Valid exactly after the barriers every rank left in time (by their
    # flags). A run with none in time cannot tell (once on CI, beside a hog:
    # 0 of 100): it is run again, at most twice.
    skip_unless_mpi4py_matches()
    script = SOURCE_DIR / "tests" / "mpi" / "programs" / "nonblocking_mpi4py.py"
    calls = 200
    for attempt in range(3):
        report, result = report_of(tmp_path, f"mpi4py{attempt}", [PYTHON, script, str(calls)])
        in_time = int(find_number(r"in_time (\d+)", result.stdout))
        if in_time > 0:
            break
    summary = "\n".join(harmonize_lines(result.stderr))
    assert in_time > 0, summary
    keys = keys_of(world_of(report))
    assert keys[("iallreduce", 128, None)]["calls"] == calls
    assert keys[("iallreduce", 128, None)]["valid_calls"] == in_time, summary
    assert keys[("ibarrier", 0, None)]["calls"] == calls


@pytest.mark.parametrize("program", ["nonblocking_mpif", "nonblocking_f08"])
def test_fortran_nonblocking_collectives_are_timed(tmp_path, program):
    # The bindings call MPI's C functions directly: the starts and the
    # completions are caught at their Fortran names, each once.
    path = PROGRAMS / program
    if not path.exists():
        pytest.skip("built without MPI Fortran support")
    # Valid calls need a barrier both ranks left in time: beside a CPU hog all
    # 50 of a run were once flagged, so a run without any is tried again, as
    # the mpi4py one above.
    for attempt in range(3):
        report, result = report_of(tmp_path, f"{program}{attempt}", [path])
        assert "nonblocking done" in result.stdout
        world = world_of(report)
        keys = keys_of(world)
        if keys[("iallreduce", 32, None)]["valid_calls"] > 0:
            break
    assert keys[("iallreduce", 32, None)]["calls"] == 50
    assert 0 < keys[("iallreduce", 32, None)]["valid_calls"] <= 50
    assert keys[("ibcast", 32, 0)]["calls"] == 50  # completed by MPI_Test
    assert keys[("ibarrier", 0, None)]["calls"] == 50  # by MPI_Waitall, two at a time
    assert keys[("ibarrier", 0, None)]["overlap"]["count"] == 100
    assert world["collectives"]["calls_unmatched"] == 0
    assert set(world["collectives"]["nonblocking_not_completed"].values()) == {0}
