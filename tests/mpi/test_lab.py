"""A real multi-node cluster (issue 14): network namespaces as nodes.

python/harmonize_tools/lab turns this machine into nodes that MPI cannot tell from
real ones: each its own network namespace, hostname, TMPDIR and core, TCP
between them over a bridge, shared memory within. H2HCA's node level then
runs as on a cluster: nodes found with MPI_COMM_TYPE_SHARED, leaders synced
over TCP, the node's other processes through shared memory.

Ground truth: HARMONIZE_TEST_CLOCK_SCOPE=host gives every process of a node
that node's clock (+-1 ms, +-50 ppm); the nodes' processes all share the one
CLOCK_MONOTONIC underneath, which arrival_truth.c stamps right before the
collective after each harmonized barrier. On the calls the library calls
valid, those true stamps must be one instant within the clock-error bound
plus the gap between the library's exit and the program's stamp.

Skipped, with one line, where labs cannot be made (not root, no namespaces).
"""
import json
import os

import pytest

from conftest import (LIBRARY, MPI_FLAVOR, MPIEXEC, PROGRAMS, clean_environment,
                      harmonize_lines, median, rerun_until, true_arrivals, world_of)
from harmonize_tools.lab.cluster import Lab, LabError, unavailable_reason

HOST_CLOCKS = {"HARMONIZE_TEST_CLOCK_OFFSET": "1ms", "HARMONIZE_TEST_CLOCK_DRIFT": "50ppm",
               "HARMONIZE_TEST_CLOCK_SEED": "3", "HARMONIZE_TEST_CLOCK_SCOPE": "host"}
CALLS = 400
# The library's exit to the program's stamp on a loaded machine (test_arrival.py).
STAMP_GAP = 2e-6
# A bound over TCP is a few RTTs: 7-30 us measured on veth; a loaded core
# stretches the ping-pongs. Above this the bound would say nothing useful.
USEFUL_BOUND = 500e-6
# Two ranks pinned to one core (a node of 2 on 1 core) answer a ping only when
# the scheduler lets them: beside a CPU hog the bound's median over 400 exits
# reached 0.59-1.44 ms and its p90 2 ms, the library before 2026-11-27's exit
# changes alike (1.9 ms p90). Honest, and a few time slices is what a sync can
# see there; the report warns that ranks share a core.
USEFUL_BOUND_SHARING_A_CORE = 5e-3
REASON = unavailable_reason()
CORES = len(os.sched_getaffinity(0))
# Debian's MPICH 4.0 talks TCP between nodes through UCX, whose TCP transport
# stops progressing too early at finalize (openucx/ucx#8738): 1 job in 4-15
# hung in MPI_Finalize across lab nodes, with or without the library (a plain
# arrival_truth run: one rank in uct_tcp_iface_progress, the other in PMI).
pytestmark = pytest.mark.skipif(
    MPI_FLAVOR == "mpich",
    reason="MPICH's UCX TCP transport hangs in MPI_Finalize between nodes (openucx/ucx#8738)")


@pytest.fixture
def lab(request):
    """A lab of request.param: a layout, or Lab's keyword arguments."""
    if REASON:
        pytest.skip(f"harmonize-lab: {REASON}")
    options = request.param if isinstance(request.param, dict) else {"layout": request.param}
    try:
        made = Lab(**options).__enter__()
    except LabError as error:  # a delay where the kernel has no netem
        pytest.skip(f"harmonize-lab: {error}")
    try:
        yield made
    finally:
        made.down()


def lab_mpi(lab, program, env, *, timeout=300, nprocs=None, extra=()):
    """`program` on the lab's slots, libharmonize preloaded into the ranks
    (not into the launcher's helpers: ip, unshare, taskset)."""
    environment = clean_environment(**env)
    names = sorted(name for name in environment if name.startswith("HARMONIZE_"))
    cmd = [MPIEXEC, "-n", str(nprocs or sum(lab.layout)), *extra]
    if MPI_FLAVOR == "openmpi":
        cmd += ["-x", f"LD_PRELOAD={LIBRARY}"] + [arg for name in names for arg in ("-x", name)]
    else:
        cmd += ["-genv", "LD_PRELOAD", str(LIBRARY)]
        cmd += [arg for name in names for arg in ("-genv", name, environment[name])]
    return lab.run(cmd + [str(p) for p in program], env=environment, timeout=timeout,
                   capture_output=True, text=True)


def harmonized(lab, tmp_path, program, enough_valid=(), **extra):
    """A harmonized job on host test clocks: (report, result). A run whose
    phases in `enough_valid` (None: the whole output) have fewer than
    CALLS // 10 valid calls for a median is run again, spaced out: beside a
    CPU hog and a simulation, 2 calls of 400 were valid once."""
    def run():
        report_path = tmp_path / f"report-{len(list(tmp_path.glob('report-*.json')))}.json"
        env = {"HARMONIZE_MODE": "harmonize", "HARMONIZE_REPORT": report_path, **HOST_CLOCKS,
               **extra}
        result = lab_mpi(lab, program, env)
        assert result.returncode == 0, f"stdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr}"
        return json.loads(report_path.read_text()), result

    def enough(outcome):
        return all(len(true_arrivals(outcome[1].stdout, valid_only=True, phase=phase)) >= CALLS // 10
                   for phase in enough_valid)

    return rerun_until(run, enough)


def spread(entries, delays=None):
    shifted = [e - d for e, d in zip(entries, delays or [0.0] * len(entries))]
    return max(shifted) - min(shifted)


def assert_one_instant(arrivals, bound, delays=None, *, ranks):
    """The true arrivals (less the pattern's delays) of the valid calls are
    one instant within the bound, at the median over calls. More processes
    than cores cannot all leave at one instant: the library must then flag
    the calls rather than claim them, and what it calls valid is still held
    to the truth."""
    if ranks <= CORES:
        assert len(arrivals) >= CALLS // 10, f"{len(arrivals)} valid calls of {CALLS}"
    errors = [spread(entries, delays) for _, entries in arrivals]
    if errors:
        assert median(errors) <= bound + STAMP_GAP, (median(errors), bound)


def assert_nodes_found(report, lab):
    assert report["job"]["nodes"] == len(lab.layout)
    assert sorted(report["job"]["hosts"]) == sorted(lab.hostnames)
    assert report["clock"]["sync_nodes"] == len(lab.layout)
    assert report["clock"]["test_clock"]["scope"] == "host"


def assert_clock_honest(record, *, ranks):
    """At every exit check each process's true clock error was within the
    bound it reported (1 % slack, as in test_honest_numbers.py), and that
    bound is a useful one for a lab of `ranks` processes; returns its median."""
    checks, violations = record["truth_bound_checks"], record["truth_bound_violations"]
    assert checks > 0 and violations <= 0.01 * checks, record
    # The likely (99 %) bound too: over the lab's TCP, between the nodes.
    assert record["truth_likely_violations"] <= 0.01 * checks, record
    bound = record["clock_error_bound"]["p50"]
    useful = USEFUL_BOUND if ranks <= CORES else USEFUL_BOUND_SHARING_A_CORE
    assert bound <= useful, record["clock_error_bound"]
    return bound


@pytest.mark.parametrize("lab,sync", [
    ((1, 1), "h2hca"),
    ((2, 2), "h2hca"),
    ((2, 2), "h3hca"),  # the socket level from hwloc, per node
    ({"layout": (1, 1), "delay": "100us"}, "h2hca"),  # skipped without netem
], ids=["2x1", "2x2", "2x2-h3hca", "2x1-delay-100us"], indirect=["lab"])
def test_the_clock_syncs_the_nodes_it_finds_over_tcp(lab, sync, tmp_path):
    ranks = sum(lab.layout)
    report, result = harmonized(lab, tmp_path, [PROGRAMS / "arrival_truth", str(CALLS)],
                                [None] if ranks <= CORES else [], HARMONIZE_SYNC=sync)
    assert report["clock"]["scheme"] == sync and report["clock"]["sync_note"] == ""
    assert_nodes_found(report, lab)
    world = world_of(report)
    bound = assert_clock_honest(world, ranks=ranks)
    assert world["truth_space_violations"] == 0
    assert len(true_arrivals(result.stdout)) == CALLS
    assert_one_instant(true_arrivals(result.stdout, valid_only=True), bound, ranks=ranks)
    if ranks > CORES:  # and the library says why its barrier cannot work here
        assert "share 1 core on a node" in result.stderr, result.stderr


@pytest.mark.parametrize("lab", [(1, 2, 1)], ids=["3-uneven"], indirect=True)
def test_sub_communicators_across_uneven_nodes(lab, tmp_path):
    """IMB's -npmin sequence (the first 2, then all 4 processes), then the
    even ranks, each communicator spanning nodes (ranks 0 | 1 2 | 3): every
    new communicator gets a clock of its own, as good as the world's."""
    phases = {"first:2": 2, "first:4": 4, "parity": 2}  # members
    report, result = harmonized(lab, tmp_path,
                                [PROGRAMS / "arrival_truth", str(CALLS), "1", *phases],
                                [phase for phase, members in phases.items() if members <= CORES])
    assert_nodes_found(report, lab)
    # No barrier on the world: the phases' communicators hold the records.
    bound = max(assert_clock_honest(c, ranks=c["size"]) for c in report["communicators"]
                if c["name"] != "MPI_COMM_WORLD")
    for phase, members in phases.items():
        assert len(true_arrivals(result.stdout, phase=phase)) == CALLS, phase
        assert_one_instant(true_arrivals(result.stdout, valid_only=True, phase=phase), bound,
                           ranks=members)
    sizes = sorted(c["size"] for c in report["communicators"] if c["name"] != "MPI_COMM_WORLD")
    assert sizes == [2, 2, 4], sizes
    for communicator in report["communicators"]:
        assert communicator["truth_space_violations"] == 0, communicator["name"]


@pytest.mark.parametrize("lab", [(2, 2)], ids=["2x2"], indirect=True)
def test_the_shared_clock_check_is_silent_on_nodes_and_fires_within_one(lab, tmp_path):
    warning = "clocks of its processes disagree by"
    report, result = harmonized(lab, tmp_path, [PROGRAMS / "barrier_loop", "300"])
    assert not [line for line in harmonize_lines(result.stderr) if warning in line], result.stderr
    check = report["clock"]["shared_clock_check"]
    assert check["checked_groups"] == 2 and check["fell_back_groups"] == 0
    assert check["worst_disagreement_s"] == 0 and check["worst_node"] is None

    # One clock per process: both nodes' copied models are proven wrong.
    report, result = harmonized(lab, tmp_path, [PROGRAMS / "barrier_loop", "300"],
                                HARMONIZE_TEST_CLOCK_SCOPE="process")
    warnings = [line for line in harmonize_lines(result.stderr) if warning in line]
    assert len(warnings) == 1 and " and 1 more: " in warnings[0], result.stderr
    check = report["clock"]["shared_clock_check"]
    assert check["checked_groups"] == 2 and check["fell_back_groups"] == 2
    assert check["worst_node"]["host"] in lab.hostnames
    assert check["worst_disagreement_s"] > 1e-6


@pytest.mark.parametrize("lab", [(1, 1)], ids=["2x1"], indirect=True)
def test_a_late_node_on_demand(lab, tmp_path):
    """HARMONIZE_ARRIVAL=node:1:30us: the processes of the second real node
    reach the collective 30 us after the first node's."""
    report, result = harmonized(lab, tmp_path, [PROGRAMS / "arrival_truth", str(CALLS)], [None],
                                HARMONIZE_ARRIVAL="node:1:30us")
    assert report["arrival"] == {"pattern": "node:1:30us", "delta": 30e-6}
    bound = assert_clock_honest(world_of(report), ranks=2)
    arrivals = true_arrivals(result.stdout, valid_only=True)
    assert_one_instant(arrivals, bound, delays=[0.0, 30e-6], ranks=2)
    # Without the pattern the arrivals would not fit: the test can fail.
    assert median(spread(entries) for _, entries in arrivals) > bound + STAMP_GAP


@pytest.mark.parametrize("lab", [(1, 1)], ids=["2x1"], indirect=True)
def test_nodes_share_no_memory(lab, tmp_path):
    """The nodes are nodes to MPI: shared memory alone cannot join them."""
    result = lab_mpi(lab, [PROGRAMS / "barrier_loop", "10"], {"HARMONIZE_MODE": "off"},
                     extra=["--mca", "btl", "self,vader"], timeout=120)
    assert result.returncode != 0
    # Open MPI words it "unreachable" or "unable to reach each other", depending on
    # which of its components notices first.
    said = (result.stdout + result.stderr).lower()
    assert "unreachable" in said or "unable to reach" in said, result.stderr[-2000:]
