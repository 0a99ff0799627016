"""Work between barriers must not collapse the slack (issue 43).

The plainest real program - MPI_Barrier, then some work, repeated - lost
99.7 % of its harmonized calls once the work lasted a millisecond: one late
exit after a spin of a few hundred nanoseconds read as a million lates per
second of spin, the slack fell below what the calls needed, every call missed
and, a missed call spinning nothing, nothing corrected the estimate.

What this VM flags after 1 ms of work, 600 calls, both MPIs: 3-5 % idle (the
machine's floor and the needs' tail: docs/barrier.md, "Long work between
barriers"); beside a CPU hog 26-40 % (three busy processes on two cores: a
rank descheduled in the agreement misses by milliseconds); the collapse
99-100 % with a slack under a third of the median need. The bounds below hold
beside a hog and fail on a collapse.
"""
import json
import re

import pytest

from conftest import PROGRAMS, rerun_until, run_mpi, world_of

CALLS = 600


def long_work_run(tmp_path, kind, microseconds, extra=None):
    # A fresh name per run: a report is never overwritten.
    path = tmp_path / f"{kind}{microseconds}-{len(list(tmp_path.glob(f'{kind}{microseconds}-*.json')))}.json"
    env = {"HARMONIZE_MODE": "harmonize", "HARMONIZE_REPORT": path, **(extra or {})}
    run = run_mpi(2, [PROGRAMS / "barrier_work", str(CALLS), kind, str(microseconds)], env=env,
                  timeout=300, check=True)
    counted = re.search(r"flagged (\d+) of (\d+)", run.stdout)
    assert counted, run.stdout + run.stderr
    flagged = int(counted.group(1)) / int(counted.group(2))
    return flagged, world_of(json.loads(path.read_text())), run


@pytest.mark.parametrize("kind", ["sleep", "spin"])
def test_a_millisecond_of_work_between_barriers_keeps_the_slack(tmp_path, kind):
    # The collapse flagged 99.3-100 % and ended at a slack of 0.5 us, below
    # the one it started at, against needs of 7 us at the median. Beside a
    # hog and another job 26-71 % are flagged; under MPICH beside a hog a
    # run's needs are at times the scheduler's (p50 50 us to 4 ms: a rank
    # descheduled in the agreement), with 90-94 % flagged and the slack at
    # its maximum, or a slack of 12-42 us that rightly does not chase them.
    # Such a run is run again; the collapse fails every run, and the last run
    # is held to what tells the collapse from the scheduler.
    def keeps_up(outcome):
        flagged, world, _ = outcome
        return flagged < 0.9 and world["slack"]["final"] > world["need"]["p50"] / 3

    flagged, world, _ = rerun_until(lambda: long_work_run(tmp_path, kind, 1000), keeps_up)
    need, slack = world["need"], world["slack"]
    assert flagged < 0.98, (flagged, slack, need)
    # Below both is the collapse; a run whose initial slack was measured
    # through a descheduled rank (16 ms once, beside a hog) may end below that.
    assert slack["final"] >= min(slack["initial"], need["p50"] / 3), (slack, need)
    # The program's own time between barriers is in the report.
    between = world["between_calls"]
    assert between["count"] >= CALLS - 2, between
    assert 0.9e-3 < between["p50"] < 50e-3, between


def test_misses_after_long_work_are_blamed_on_the_work(tmp_path):
    # A slack capped far below what the calls need after 1 ms of sleep: every
    # call misses by microseconds, and the warning must name the program's
    # time between barriers and the needs, not descheduling.
    # Beside a CPU hog and another job (load 5 on 2 cores) the misses were
    # once late by the scheduler's tick, not microseconds, and the warning
    # rightly blamed the load ("compete for the cores"; under MPICH beside a
    # hog once "descheduled while waiting", exit skew p50 35 us): such a
    # burst is run again, a library that never names the work fails every run.
    def warning_of(outcome):
        return next((line for line in outcome[2].stderr.splitlines() if "harmonize: warning:" in line), "")

    def blames_load(warning):
        return "compete for the cores" in warning or "descheduled" in warning

    flagged, world, run = rerun_until(
        lambda: long_work_run(tmp_path, "sleep", 1000, {"HARMONIZE_SLACK_MAX": "200ns"}),
        lambda outcome: not blames_load(warning_of(outcome)))
    assert flagged > 0.5, (flagged, world["need"])
    warning = warning_of((flagged, world, run))
    if blames_load(warning):
        # Every run was beside a load that lasted (under MPICH beside a hog the
        # needs' median was at times milliseconds, the scheduler's): the
        # verdict must then follow from the report's own figures (the rule of
        # report/harmonization_warning.cpp), and a verdict against them fails.
        need, between, lateness = (world[key]["p50"] for key in ("need", "between_calls", "lateness"))
        assert lateness >= 100e-6 or between <= 10 * need, (warning, need, between, lateness)
        return
    assert "the program's own time between barriers (median " in warning, warning
    assert "needs p50 " in warning, warning
    assert "HARMONIZE_SLACK_MIN=" in warning, warning
    assert "descheduled" not in warning, warning
