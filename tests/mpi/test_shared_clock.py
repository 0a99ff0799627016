"""A shared clock that is not shared must not go unnoticed (issue 10).

H2HCA copies a node leader's clock models to the other processes of the node,
which is only right when they all read one clock. Here the assumption is
broken on purpose, on one machine:

* HARMONIZE_TEST_CLOCK_SCOPE=process gives every process a test clock of its
  own (+-1 ms, +-50 ppm) while the nodes stay the shared-memory node (or the
  HARMONIZE_TEST_NODE_SIZE virtual nodes). Before the check, 2 such ranks left
  every harmonized barrier 36-122 ms apart, with 0 misses reported.
* a real Linux time namespace whose CLOCK_MONOTONIC is 1 s ahead.

The library must prove the disagreement (sync/shared_clock_check.hpp), say so
once, and synchronize those processes individually, after which the clock and
the barrier are as good as on distinct nodes. Bounds as in test_clock.py and
test_harmonize.py: what a loaded 2-core machine guarantees, still 1000x below
what a copied model of an unshared clock leaves.
"""
import json
import shutil
import subprocess

import pytest

from conftest import (BIN, LIBRARY, MPI_FLAVOR, MPIEXEC, PROGRAMS, clean_environment,
                      harmonize_lines, run_mpi, world_of)

CLOCKCHECK = BIN / "harmonize-clockcheck"
BARRIERS = PROGRAMS / "barrier_loop"
TEST_CLOCKS = {"HARMONIZE_TEST_CLOCK_OFFSET": "1ms", "HARMONIZE_TEST_CLOCK_DRIFT": "50ppm",
               "HARMONIZE_TEST_CLOCK_SEED": "7"}
PER_PROCESS = {**TEST_CLOCKS, "HARMONIZE_TEST_CLOCK_SCOPE": "process"}
# Right after a sync every rank's true error must be within the bound its
# sync proves (never otherwise), and that bound a useful one: at most this,
# 90 to thousands of times below the 36-122 ms a copied model leaves. A loaded core
# stretches the ping-pongs and the bound with them; a fixed 1 us on the true
# error flaked under ctest -j2 (4.9-6.9 us, twice in a row).
USEFUL_BOUND = {2: 20e-6, 4: 400e-6}
WARNING = "clocks of its processes disagree by"


def fallback_warnings(stderr):
    return [line for line in harmonize_lines(stderr) if WARNING in line]


def clockcheck(nprocs, env):
    result = run_mpi(nprocs, [CLOCKCHECK, "--json", "--wait", "0"], preload=False, env=env,
                     btl="vader,self")
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def worst_bound(report):
    return max(rank["bound_after_sync_ns"] for rank in report["per_rank"]) * 1e-9


def assert_synced_within_bounds(nprocs, env):
    """Fresh runs tell a load burst from a broken sync (test_clock.py,
    within_bounds_or_rerun): a burst beside the other tests of ctest -j2 lasted
    through two runs (150 us bounds), so three; a true error beyond its
    bound fails at once, in any run."""
    for _ in range(3):
        report = clockcheck(nprocs, env)
        for rank in report["per_rank"]:
            assert rank["bound_within"], rank
        if worst_bound(report) < USEFUL_BOUND[nprocs]:
            break
    assert worst_bound(report) < USEFUL_BOUND[nprocs], report["per_rank"]


def barrier_job(tmp_path, nprocs, env, barriers=3000, name="job"):
    report = tmp_path / f"{name}.json"
    environment = {"HARMONIZE_MODE": "harmonize", "HARMONIZE_REPORT": report, **env}
    result = run_mpi(nprocs, [BARRIERS, str(barriers)], env=environment, btl="vader,self",
                     timeout=300, check=True)
    return json.loads(report.read_text()), result.stderr


# A copied model of an unshared clock leaves every call tens to hundreds of
# milliseconds apart (36-122 ms measured with 2 ranks), and a rank either
# waits that long in every call (110-207 ms) or misses every deadline.
# Working, 2 ranks leave nanoseconds apart (microseconds when a loaded core
# delays a spinning rank). 4 ranks on 2 cores are often not running at their
# deadline, the slack grows and calls take milliseconds, with shared clocks
# just as much (measured with a CPU hog beside them, scope node: exit skew
# p50 0.27-1.2 ms, 5-23 ms in a call, 0.7-2.2 % missed; scope process:
# 16-54 us, 6-7 ms, 2.2-2.6 %): the bounds only tell those from broken.
# 4 ranks on 2 cores beside a CPU hog and another test missed 22 % of the
# deadlines (measured); 2 ranks under MPICH beside a hog missed 7.5 % in two
# runs in a row (a fresh-clone CI, 2026-11-27: exit skew p50 and the time in
# the call as when working); a copied model misses nearly all, by tens of ms.
SOUND = {2: {"skew": 20e-6, "time_in_call": 1e-3, "missed": 0.25},
         4: {"skew": 5e-3, "time_in_call": 50e-3, "missed": 0.5}}


def barrier_is_sound(world, nprocs):
    bound = SOUND[nprocs]
    return (world["truth_exit_skew"]["p50"] < bound["skew"] and
            world["time_in_call"]["mean"] < bound["time_in_call"] and
            world["missed_calls_any"] < bound["missed"] * world["calls"])


def harmonized_job(tmp_path, nprocs, env):
    """One fresh run tells a load burst from a broken clock, which fails twice."""
    report, stderr = barrier_job(tmp_path, nprocs, env)
    if not barrier_is_sound(world_of(report), nprocs):
        report, stderr = barrier_job(tmp_path, nprocs, env, name="again")
    return report, stderr


def figures(world):
    return (world["truth_exit_skew"], world["time_in_call"], world["missed_calls_any"])


def test_two_processes_with_their_own_clocks_are_synced_individually(tmp_path):
    # The clock: exact ground truth per rank (its own skew).
    assert_synced_within_bounds(2, PER_PROCESS)
    # The barrier, its warning and report.
    report, stderr = harmonized_job(tmp_path, 2, PER_PROCESS)
    warnings = fallback_warnings(stderr)
    assert len(warnings) == 1, stderr
    assert warnings[0].startswith("harmonize: warning: node ")
    assert "(world ranks 0-1)" in warnings[0] and "HCA3 within the node" in warnings[0]
    check = report["clock"]["shared_clock_check"]
    assert check["checked_groups"] == 1 and check["fell_back_groups"] == 1
    assert check["tolerance_s"] == pytest.approx(100e-9)
    assert check["worst_disagreement_s"] > 1e-6
    assert check["worst_node"]["world_ranks"] == "0-1" and check["worst_node"]["host"]
    assert report["clock"]["test_clock"]["scope"] == "process"
    world = world_of(report)
    assert world["truth_space_violations"] == 0
    assert barrier_is_sound(world, 2), figures(world)


def test_four_processes_on_two_virtual_nodes_with_their_own_clocks(tmp_path):
    env = {**PER_PROCESS, "HARMONIZE_TEST_NODE_SIZE": "2"}
    assert_synced_within_bounds(4, env)
    report, stderr = harmonized_job(tmp_path, 4, env)
    warnings = fallback_warnings(stderr)
    assert len(warnings) == 1 and " and 1 more: " in warnings[0], stderr
    check = report["clock"]["shared_clock_check"]
    assert check["checked_groups"] == 2 and check["fell_back_groups"] == 2
    assert check["worst_node"]["world_ranks"] in ("0-1", "2-3")
    world = world_of(report)
    assert world["truth_space_violations"] == 0
    assert barrier_is_sound(world, 4), figures(world)


@pytest.mark.parametrize("nprocs,env", [
    (2, {**TEST_CLOCKS, "HARMONIZE_TEST_NODE_SIZE": "2"}),  # one virtual node, one clock
    (4, {**TEST_CLOCKS, "HARMONIZE_TEST_NODE_SIZE": "2"}),
    (2, {}),  # no test clocks: the machine's own CLOCK_MONOTONIC, shared for real
], ids=["scope-node-2", "scope-node-4", "real-clock"])
def test_a_shared_clock_is_checked_and_never_flagged(tmp_path, nprocs, env):
    report, stderr = barrier_job(tmp_path, nprocs, env, barriers=500)
    assert not fallback_warnings(stderr), stderr
    check = report["clock"]["shared_clock_check"]
    assert check["checked_groups"] == nprocs // 2
    assert check["fell_back_groups"] == 0
    # Not small: exactly 0. Every proven interval contains 0 on one clock.
    assert check["worst_disagreement_s"] == 0 and check["worst_node"] is None


def test_nothing_is_checked_where_nothing_is_copied(tmp_path):
    # Test clocks of scope node without a node size: every rank is its own
    # node; hca3: no node level at all.
    for name, env in (("alone", TEST_CLOCKS), ("hca3", {"HARMONIZE_SYNC": "hca3"})):
        report, stderr = barrier_job(tmp_path, 2, env, barriers=100, name=name)
        assert report["clock"]["shared_clock_check"] is None
        assert not fallback_warnings(stderr)


def time_namespaces_work():
    unshare = shutil.which("unshare")
    if unshare is None:
        return False, "no unshare(1)"
    probe = subprocess.run([unshare, "--time", "--fork", "--monotonic", "1", "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return False, f"unshare --time fails here: {probe.stderr.strip()}"
    return True, ""


def test_a_real_time_namespace_is_caught(tmp_path):
    ok, why = time_namespaces_work()
    if not ok:
        pytest.skip(why)
    report_file = tmp_path / "namespace.json"
    env = clean_environment(HARMONIZE_MODE="harmonize", HARMONIZE_REPORT=report_file,
                            LD_PRELOAD=LIBRARY)
    program = [str(BARRIERS), "3000"]
    # One rank in the host's time namespace, one in a namespace whose
    # CLOCK_MONOTONIC is 1 s ahead: one node, two clocks.
    options = ["--oversubscribe", "--bind-to", "none", "--mca", "btl", "vader,self"] \
        if MPI_FLAVOR == "openmpi" else []
    command = [MPIEXEC, *options, "-n", "1", *program, ":", "-n", "1",
               shutil.which("unshare"), "--time", "--fork", "--monotonic", "1", *program]

    def launch():
        result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
        if result.returncode != 0 and MPI_FLAVOR != "openmpi":
            pytest.skip(f"{MPI_FLAVOR}'s launcher cannot run a rank through unshare: "
                        f"{result.stderr.strip()[:300]}")
        assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        return result

    result = launch()
    # One fresh run tells a load burst from a broken clock (harmonized_job).
    if not sound_barrier(world_of(json.loads(report_file.read_text()))):
        report_file.unlink()  # the library never overwrites a report
        result = launch()
    warnings = fallback_warnings(result.stderr)
    assert len(warnings) == 1, result.stderr
    report = json.loads(report_file.read_text())
    check = report["clock"]["shared_clock_check"]
    assert check["fell_back_groups"] == 1
    # The proven part of the 1 s: its measurement's uncertainty less (ms on
    # a loaded machine whose MPI spins without yielding).
    assert 0.9 < check["worst_disagreement_s"] <= 1.0 + 1e-6
    world = world_of(report)
    # No ground truth here (CLOCK_MONOTONIC itself differs): the barrier's own
    # figures, which an unshared clock ruins (a 1 s wait or a miss per call).
    assert world["harmonized_calls"] == 3000
    assert world["time_in_call"]["mean"] < 1e-3, world["time_in_call"]
    # A clock off by 1 s misses every call; a sound one beside a CPU hog and a
    # parallel test missed 5.6 % twice in a row (the machine's, not the clock's).
    assert world["missed_calls_any"] < MISSED_AT_MOST * world["calls"], world["missed_calls_any"]


MISSED_AT_MOST = 0.2


def sound_barrier(world):
    """The figures test_a_real_time_namespace_is_caught asserts."""
    return (world["time_in_call"]["mean"] < 1e-3 and
            world["missed_calls_any"] < MISSED_AT_MOST * world["calls"])
