"""The slack against a CPU hog (issue 11).

A program spinning beside two ranks on two cores preempts each of them for
milliseconds now and then. No microsecond slack prevents the misses that
causes, and a slack of milliseconds is a spin of milliseconds, itself
preempted. The previous slack controller steered towards a fixed miss rate
and ratcheted the slack up to milliseconds here (5 ms in every call, 46-67 %
of calls late); the cost-based choice must keep it at what the calls need.

The bounds are relative to the native barrier measured beside the same hog
and to what the harmonized calls themselves needed (more load, from CI's own
hog or a parallel test, slows both): the point is milliseconds of slack
against microseconds of need. When most calls do need milliseconds (five
runners on two cores), a slack of milliseconds is the right one: it failed
once that way against the native barrier alone, measured before the load
rose.
"""
import json
import subprocess
import sys

import pytest

from conftest import PROGRAMS, run_mpi, world_of

TEST_CLOCKS = {"HARMONIZE_TEST_CLOCK_OFFSET": "1ms", "HARMONIZE_TEST_CLOCK_DRIFT": "50ppm",
               "HARMONIZE_TEST_CLOCK_SEED": "5"}


@pytest.fixture
def cpu_hog():
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield hog
    finally:
        hog.kill()
        hog.wait()


def barrier_job(tmp_path, mode):
    report_path = tmp_path / f"{mode}.json"
    env = {"HARMONIZE_MODE": mode, "HARMONIZE_REPORT": report_path, **TEST_CLOCKS}
    run_mpi(2, [PROGRAMS / "barrier_loop", "20000"], env=env, btl="self,tcp", timeout=500,
            check=True)
    return world_of(json.loads(report_path.read_text()))


def test_a_cpu_hog_does_not_drive_the_slack_to_milliseconds(tmp_path, cpu_hog):
    # Over TCP, where the previous controller ended at 4.3 ms of slack. The
    # native barrier under the same load (observe mode) says what a call
    # costs here, whatever else loads the machine.
    native = barrier_job(tmp_path, "observe")["time_in_call"]["p50"]
    world = barrier_job(tmp_path, "harmonize")
    assert world["truth_space_violations"] == 0
    assert world["harmonized_calls"] == 20000
    # What the calls need is ~10 us, and milliseconds when a process is
    # preempted; a working slack is a few native barriers, or twice what nine
    # calls in ten needed (the previous controller: 4.3 ms against ~15 us).
    need = world["need"]
    assert need["count"] >= 19000, need  # every call but the last, and resyncs'
    ceiling = max(300e-6, 20 * native, 2 * need["p90"])
    assert world["slack"]["final"] < ceiling, (world["slack"], native, need)
    assert world["time_in_call"]["p50"] < ceiling, (world["time_in_call"], native, need)
    # Not asserted: the late rate. It is the machine's (34 % with CI's hog and
    # a parallel test beside this one's), and no slack prevents it.
