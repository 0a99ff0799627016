"""The report's numbers against ground truth (test clocks).

Every rank reads a test clock with a known offset (+-1 ms) and drift
(+-50 ppm); the untouched machine clock is the truth. The library computes,
per call and per process, when the deadline truly was and how far its own
global clock truly was from the reference, and counts where its report would
otherwise have said "all is well":

- a process that saw its deadline in time but was descheduled while spinning
  leaves late; its flag must say so (late exit), or the call is counted in
  `truth_late_unflagged`;
- every exit carries the clock-error bound of its process: the true error of
  the process's global clock must be within it (`truth_bound_violations`),
  and the skew in the summary line is printed with it;
- at MPI_Finalize the world clock is checked against the reference (paper
  001, Check-Global-Clock): the measured offsets must agree with the bounds.

The bounds of these tests hold on a loaded 2-core machine.
"""
import json
import os

import pytest

from conftest import PROGRAMS, harmonize_lines, run_mpi, world_of

TEST_CLOCKS = {"HARMONIZE_TEST_CLOCK_OFFSET": "1ms", "HARMONIZE_TEST_CLOCK_DRIFT": "50ppm",
               "HARMONIZE_TEST_CLOCK_SEED": "11"}


def run_job(tmp_path, program, nprocs=2, btl=None, extra=None, timeout=300):
    report = tmp_path / "report.json"
    env = {"HARMONIZE_MODE": "harmonize", "HARMONIZE_REPORT": report, **TEST_CLOCKS,
           **(extra or {})}
    result = run_mpi(nprocs, [PROGRAMS / program[0], *program[1:]], env=env, btl=btl,
                     timeout=timeout, check=True)
    return json.loads(report.read_text()), result


def test_a_process_preempted_while_spinning_is_flagged_late(tmp_path):
    # Rank 1 loses the CPU for 200 us every ~1 ms, like a process on a busy
    # core: some of those stalls fall into its spin towards the deadline.
    report, result = run_job(tmp_path, ("preempted_spin", "3", "1", "997", "200"))
    world = world_of(report)
    late_by_rank = world["late_events_per_rank"]
    assert world["late_calls_any"] >= 5, world
    assert late_by_rank[1] >= 5, late_by_rank
    assert world["late_by"]["p50"] > 1e-6, world["late_by"]
    # Ground truth: the calls in which a process truly left late (beyond the
    # threshold plus its clock-error bound) are flagged, missed or late.
    truly_late = world["truth_late_calls"]
    unflagged = world["truth_late_unflagged"]
    assert truly_late >= 5, world
    assert unflagged <= max(1, 0.01 * truly_late), (truly_late, unflagged)
    summary = [line for line in harmonize_lines(result.stderr) if "mode=harmonize" in line]
    assert summary and f"{world['late_calls_any']} late" in summary[0], result.stderr


@pytest.mark.parametrize("btl,nprocs,node_size", [(None, 2, None), ("self,tcp", 2, None),
                                                  (None, 4, "2")])
def test_the_clock_error_bound_holds_against_ground_truth(tmp_path, btl, nprocs, node_size):
    extra = {"HARMONIZE_TEST_NODE_SIZE": node_size} if node_size else {}
    report, result = run_job(tmp_path, ("barrier_loop", "5000"), nprocs=nprocs, btl=btl,
                             extra=extra)
    world = world_of(report)
    checks, violations = world["truth_bound_checks"], world["truth_bound_violations"]
    assert checks == 5000 * nprocs, world
    assert violations <= 0.01 * checks, (violations, checks, world["clock_error_bound"],
                                         world["truth_clock_error"])
    # Honest, and still a useful bound: a working clock is good to
    # microseconds over shared memory here, tens over TCP. More ranks than
    # cores make every ping-pong wait for a context switch, and the clock is
    # truly that bad, not its bound loose: 4 ranks on 2 cores, bound p50
    # 14 us against true errors p50 4.3 us, p99 14.8 us (21.3 us once
    # beside a CPU hog, above the 20 us this ceiling was before).
    crowded = nprocs > (os.cpu_count() or 1)
    ceiling = 20e-6 if btl is None and not crowded else 200e-6
    assert 0 < world["clock_error_bound"]["p50"] < ceiling, world["clock_error_bound"]
    # The likely (99 %) bound: within at 99 % of the exits, never above the
    # proven one. On an oversubscribed node time slices bias whole syncs, and
    # it is the proven one there.
    likely = world["clock_error_likely"]
    assert world["truth_likely_violations"] <= 0.01 * checks, (
        world["truth_likely_violations"], likely, world["truth_clock_error"])
    assert likely["count"] == world["clock_error_bound"]["count"]
    assert likely["max"] <= world["clock_error_bound"]["max"]
    if crowded:
        assert likely["p50"] == world["clock_error_bound"]["p50"]
    end = report["clock"]["end_check"]
    assert end["checked"] == nprocs - 1 and end["candidates"] == nprocs - 1, end
    assert end["inconsistent"] == 0, end
    assert end["truth_max_error"] <= end["max_bound"] + 1e-9, end
    summary = [line for line in harmonize_lines(result.stderr) if "mode=harmonize" in line]
    assert summary and "(clock error <= " in summary[0] and " at end)" in summary[0], summary


def test_observe_mode_carries_the_bound_too(tmp_path):
    report, _ = run_job(tmp_path, ("barrier_loop", "2000"), extra={"HARMONIZE_MODE": "observe"})
    world = world_of(report)
    assert world["clock_error_bound"]["count"] == 2000, world
    assert world["truth_bound_violations"] <= 0.01 * world["truth_bound_checks"], world
