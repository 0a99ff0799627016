"""HARMONIZE_SYNC=none (issue 28 item 4): clocks that are global already (PTP,
a hardware clock) are used as they are, and verified. Check-Global-Clock
measures them at MPI_Init (and at each resync) and the measurement is the
error bound; MPI_Finalize checks again. On one machine the processes share a
clock, so nothing is off; test clocks make them disagree by a known amount,
which the bound must cover and the warning must name."""
import json

from conftest import PROGRAMS, run_mpi, world_of

WARNING = "HARMONIZE_SYNC=none takes the clocks as global"


def given_clock_job(tmp_path, nprocs, env, barriers=300):
    report = tmp_path / "job.json"
    environment = {"HARMONIZE_MODE": "harmonize", "HARMONIZE_SYNC": "none",
                   "HARMONIZE_REPORT": report, **env}
    result = run_mpi(nprocs, [PROGRAMS / "barrier_loop", str(barriers)], env=environment,
                     timeout=300, check=True)
    return json.loads(report.read_text()), result.stderr


def test_a_shared_clock_taken_as_global_is_checked_not_synchronized(tmp_path):
    report, stderr = given_clock_job(tmp_path, 2, {})
    clock = report["clock"]
    assert clock["scheme"] == "none" and clock["sync_levels"] == 0
    assert WARNING not in stderr
    end = clock["end_check"]
    # One clock: what the check measures is its own uncertainty, and the
    # bound claimed at MPI_Init held to the end.
    assert end["checked"] == 1 and end["inconsistent"] == 0
    assert abs(end["max_offset"]) <= end["max_uncertainty"]
    world = world_of(report)
    assert world["calls"] == 300
    assert "sync=none" in stderr


def test_clocks_that_are_not_global_are_named_and_bounded(tmp_path):
    # Each rank on its own test clock, 20 us apart at most, no drift (a drift
    # since boot would put them seconds apart, as any unsynchronized clock).
    env = {"HARMONIZE_TEST_CLOCK_OFFSET": "20us", "HARMONIZE_TEST_CLOCK_DRIFT": "0ppm",
           "HARMONIZE_TEST_CLOCK_SEED": "5"}
    report, stderr = given_clock_job(tmp_path, 4, env, barriers=50)
    warning = next(line for line in stderr.splitlines() if WARNING in line)
    assert "world rank" in warning and "of the 3 ranks checked" in warning
    end = report["clock"]["end_check"]
    # The bound is what was measured, so it covers the truth: the test
    # clocks' real offsets, computed apart from the library's own clock.
    assert end["inconsistent"] == 0
    assert 1e-6 < end["truth_max_error"] <= end["max_bound"]
    assert end["max_bound"] < 40e-6 + 2 * end["max_uncertainty"]
