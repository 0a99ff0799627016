"""harmonize-clockcheck against ground truth (issue 3).

Every (virtual) node gets a test clock of up to +-1 ms offset and +-50 ppm
drift; the untouched CLOCK_MONOTONIC is the truth, so each rank reports the
exact error of its global clock. The bounds below must hold on a loaded
2-core machine (other jobs compiling, 4 ranks oversubscribed), so they are
set from what can be *guaranteed*, not from what is typical:

* SKaMPI-Offset can never be wrong by more than half the round trip of its
  fastest exchange (the reference stamp lies between the client's two
  stamps). Shared-memory round trips are ~1 us and stay below ~2 us even
  when a core is shared; over TCP loopback ~30 us, below ~100 us when loaded.
  Typical errors are 100-1000x smaller (docs/clock-sync.md): 2-20 ns over
  shared memory, 20-100 ns over TCP.
* 4 ranks on 2 cores are oversubscribed: a pair's partner is often not
  running when a ping arrives, round trips then include a context switch,
  and the guarantee loosens accordingly (measured: 0.03-1.7 us over shared
  memory under a load of 3-4, 5.8-10.9 us with a CPU hog beside the four
  ranks), hence the 20x wider bounds for 4 ranks - still 50x below the
  +-1 ms a broken sync would leave.
* After a wait, a single sync adds at most (true drift difference <= 100 ppm)
  x wait when its slope is dropped as insignificant, and less when not.
* With a few syncs spaced in time the drift is known to ~1e-8, so the error
  after a short wait stays at the level right after a sync.

Every clock also reports an error bound against rank 0's clock
(docs/clock-error.md). That bound is what the tests mean by "within": the
true error must lie inside it on every run, loaded or not, without reruns (it
is proven, not typical). The fixed limits above stay as sanity ceilings on
the error, and BOUND_CEILING keeps the bound useful (a bound of a second
would be honest too).
"""
import json

import pytest

from conftest import BIN, rerun_until, run_mpi

CLOCKCHECK = BIN / "harmonize-clockcheck"
TEST_CLOCKS = {"HARMONIZE_TEST_CLOCK_OFFSET": "1ms", "HARMONIZE_TEST_CLOCK_DRIFT": "50ppm"}
# Half the worst round trip we accept as "not a broken machine", see above.
AFTER_SYNC_BOUND = {"vader,self": 1e-6, "tcp,self": 5e-6}
OVERSUBSCRIBED = 20  # factor for 4 ranks on 2 cores
# The bound right after a sync is about half the fastest round trip per level
# (measured 0.3-0.4 us shared memory, 6-16 us TCP here, idle or loaded).
BOUND_CEILING = {"vader,self": 20e-6, "tcp,self": 200e-6}


def clockcheck(nprocs, *args, btl="vader,self", env=None, timeout=120):
    environment = dict(TEST_CLOCKS)
    environment.update(env or {})
    result = run_mpi(nprocs, [CLOCKCHECK, "--json", *args], preload=False, env=environment,
                     btl=btl, timeout=timeout)
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    lines = [line for line in result.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, result.stdout
    report = json.loads(lines[0])
    assert_bound_honest(report)  # on every run: the reruns below are for the ceilings only
    return report


def assert_bound_honest(report):
    """Every rank's true error within the bound its clock reports, right after
    the sync and after the wait; and the measured offsets (Alg. 6) consistent
    with the two bounds involved, as the tool's own count says."""
    ranks = report["per_rank"]
    for r in ranks:
        for when in ("after_sync", "after_wait"):
            error = abs(r[f"true_error_{when}_ns"])
            bound = r[f"bound_{when}_ns"]
            assert error <= bound, f"rank {r['rank']} {when}: |{error}| ns > bound {bound} ns"
            # |offset| <= both bounds at the measurement + its uncertainty.
            assert r[f"offset_consistent_{when}"] is True, f"rank {r['rank']} {when}: {r}"
        assert r["bound_within"] is True
    assert ranks[0]["bound_after_sync_ns"] == 0  # rank 0 is the reference
    honest = report["bound_honest"]
    assert honest == {"within": len(ranks), "ranks": len(ranks), "by": "truth"}


def oversubscribed_clockcheck(*args, btl="vader,self", env=None):
    """4 ranks on 2 cores: a partner is often off the core (see
    within_bounds_or_rerun)."""
    bound = OVERSUBSCRIBED * AFTER_SYNC_BOUND[btl]

    def ok(report):
        maximum = report["max"]
        return (maximum["true_error_after_sync_ns"] * 1e-9 < bound and
                maximum["bound_after_sync_ns"] * 1e-9 < OVERSUBSCRIBED * BOUND_CEILING[btl])

    report = within_bounds_or_rerun(lambda: clockcheck(4, *args, btl=btl, env=env), ok)
    assert report["max"]["bound_after_sync_ns"] * 1e-9 < OVERSUBSCRIBED * BOUND_CEILING[btl]
    return report, bound


def within_bounds_or_rerun(run, ok):
    """A sync whose every exchange met a load burst (seen here: stalls of
    0.15-0.65 s on a 2-core machine with a CPU hog beside the ranks, errors
    of 0.1-7 ms with other jobs' tests and hogs beside, with and without the
    error bounds) misses the sanity ceilings once in a while - and then
    reports a bound as large, which `run` asserts on every attempt. Fresh
    runs, spaced out (three back to back all met one burst: 4 ms beside a
    hog and a simulation), tell a load burst from a broken sync, which fails
    every time."""
    return rerun_until(run, ok)


@pytest.mark.parametrize("btl", ["vader,self", "tcp,self"])
def test_two_ranks_right_after_sync_and_after_a_wait(btl):
    def ok(report):
        maximum = report["max"]
        return (maximum["true_error_after_sync_ns"] * 1e-9 < AFTER_SYNC_BOUND[btl] and
                maximum["offset_after_sync_ns"] * 1e-9 < 2 * AFTER_SYNC_BOUND[btl] and
                maximum["true_error_after_wait_ns"] * 1e-9 < 100e-6 + AFTER_SYNC_BOUND[btl] and
                maximum["bound_after_sync_ns"] * 1e-9 < BOUND_CEILING[btl])

    report = within_bounds_or_rerun(lambda: clockcheck(2, "--wait", "1", btl=btl), ok)
    assert report["ranks"] == 2 and report["nodes"] == 2 and report["rounds"] == 1
    assert report["test_clock"] is True
    maximum = report["max"]
    assert maximum["bound_after_sync_ns"] * 1e-9 < BOUND_CEILING[btl]
    # A single sync knows nothing of the drift: the bound grows by the
    # physical maximum, 100 ppm, for the 1 s wait.
    assert maximum["bound_after_wait_ns"] * 1e-9 < 100e-6 * 1.1 + BOUND_CEILING[btl]
    assert maximum["true_error_after_sync_ns"] * 1e-9 < AFTER_SYNC_BOUND[btl]
    # The offset Algorithm 6 measures sees the same small error plus its own noise.
    assert maximum["offset_after_sync_ns"] * 1e-9 < 2 * AFTER_SYNC_BOUND[btl]
    # 1 s at up to 100 ppm difference, plus the error we started from.
    assert maximum["true_error_after_wait_ns"] * 1e-9 < 100e-6 + AFTER_SYNC_BOUND[btl]
    # Rank 0 is the reference: its error is zero by definition.
    assert report["per_rank"][0]["true_error_after_sync_ns"] == 0


@pytest.mark.parametrize("btl", ["vader,self", "tcp,self"])
def test_four_ranks_on_two_virtual_nodes(btl):
    report, bound = oversubscribed_clockcheck("--wait", "0.5", btl=btl,
                                              env={"HARMONIZE_TEST_NODE_SIZE": "2"})
    assert report["nodes"] == 2 and report["levels"] == 2 and report["rounds"] == 1
    assert report["scheme"] == "h2hca"
    ranks = report["per_rank"]
    assert max(abs(r["true_error_after_sync_ns"]) for r in ranks) * 1e-9 < bound
    # Rank 1 shares rank 0's clock and copies its (empty) model: exact.
    assert abs(ranks[1]["true_error_after_sync_ns"]) < 1e-3
    # Rank 3 reads rank 2's clock through rank 2's models, and the tool
    # evaluates every rank's error at the same true instant: identical; and
    # ClockPropSync ships the bound with the models.
    assert ranks[3]["true_error_after_sync_ns"] == pytest.approx(
        ranks[2]["true_error_after_sync_ns"], abs=1e-3)
    assert ranks[3]["bound_after_sync_ns"] == pytest.approx(ranks[2]["bound_after_sync_ns"],
                                                            abs=1e-3)
    assert ranks[1]["bound_after_sync_ns"] == 0


def test_repeated_syncs_refine_the_drift():
    # Baseline 1.5 s across four syncs: drift known to ~1e-8, so 2 s later
    # the error is still tens of ns; 2 us leaves room for a stalled core.
    report = within_bounds_or_rerun(
        lambda: clockcheck(2, "--syncs", "4", "--interval", "0.5", "--wait", "2"),
        lambda r: (r["max"]["true_error_after_wait_ns"] * 1e-9 < 2e-6 and
                   r["max"]["bound_after_wait_ns"] * 1e-9 < 50e-6))
    assert len(report["syncs"]) == 4
    assert report["max"]["true_error_after_wait_ns"] * 1e-9 < 2e-6
    # The history pins the drift down, so the bound 2 s later is far below
    # the 200 us a single sync would have to claim.
    assert report["max"]["bound_after_wait_ns"] * 1e-9 < 50e-6


def test_hca3_rounds_on_four_ranks():
    report, bound = oversubscribed_clockcheck("--wait", "0", env={"HARMONIZE_SYNC": "hca3"})
    assert report["scheme"] == "hca3" and report["rounds"] == 2 and report["levels"] == 1
    assert report["max"]["true_error_after_sync_ns"] * 1e-9 < bound


def test_h3hca_uses_sockets_or_says_why_not():
    # The tests launch with --bind-to none: on a one-socket machine every
    # process is still within one socket (3 levels); on a multi-socket one it
    # is not, and the scheme falls back to the node level with a reason.
    report = within_bounds_or_rerun(
        lambda: clockcheck(2, "--wait", "0", env={"HARMONIZE_SYNC": "h3hca"}),
        lambda r: r["max"]["true_error_after_sync_ns"] * 1e-9 < AFTER_SYNC_BOUND["vader,self"])
    if report["scheme"] == "h3hca":
        assert report["levels"] == 3 and report["fallback_note"] == ""
    else:
        assert report["scheme"] == "h2hca" and report["levels"] == 2
        assert "socket" in report["fallback_note"] or "hwloc" in report["fallback_note"]
    assert report["max"]["true_error_after_sync_ns"] * 1e-9 < AFTER_SYNC_BOUND["vader,self"]


def test_mean_rtt_offset_and_early_stop_run():
    env = {"HARMONIZE_OFFSET_ALG": "meanrtt", "HARMONIZE_PINGPONGS": "50",
           "HARMONIZE_MINRTT_PATIENCE": "5"}
    # Its points are bounded by the SKaMPI interval of the same exchanges:
    # clockcheck() asserts the bound honest on every run.
    # Mean-RTT has no min-RTT guarantee: its one RTT measurement, if a
    # neighbour's load preempts a rank during it, biases the offset by half a
    # time slice (1 ms seen with a CPU hog beside the test). Fresh runs tell
    # such a spike from a broken algorithm, which fails every time.
    report = within_bounds_or_rerun(
        lambda: clockcheck(2, "--wait", "0", env=env),
        lambda r: r["max"]["true_error_after_sync_ns"] * 1e-9 < 5e-6)
    # Otherwise the RTT itself (~1-2 us) bounds the error.
    assert report["max"]["true_error_after_sync_ns"] * 1e-9 < 5e-6


def test_without_test_clocks_only_measured_offsets():
    result = run_mpi(2, [CLOCKCHECK, "--wait", "0"], preload=False, btl="vader,self")
    assert result.returncode == 0, result.stderr
    assert "summary:" in result.stdout and "offset_after_sync_max_ns=" in result.stdout
    # Without ground truth the bound is checked against the measured offsets.
    assert "bound honest: 2 of 2 ranks within (by measured offsets)" in result.stdout


def test_text_output_shows_bounds_and_the_honesty_line():
    result = run_mpi(2, [CLOCKCHECK, "--wait", "0"], preload=False, env=TEST_CLOCKS,
                     btl="vader,self")
    assert result.returncode == 0, result.stderr
    assert "bound_ns" in result.stdout
    assert "bound honest: 2 of 2 ranks within (by truth)" in result.stdout
    assert "bound_after_sync_max_ns=" in result.stdout


def test_bad_argument_is_refused():
    result = run_mpi(2, [CLOCKCHECK, "--wait", "soon"], preload=False)
    assert result.returncode != 0
    assert "bad argument '--wait'" in result.stderr or "bad argument 'soon'" in result.stderr
