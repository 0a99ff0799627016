"""scripts/harmonize-scale on SimGrid/SMPI: 64 simulated ranks (2 nodes x 32),
per-node test clocks (+-1 ms, +-50 ppm), ground truth from the report.

The SMPI variant is built once in <build>/smpi (about a minute on 2 cores);
each simulated run takes seconds.
"""
import csv
import json
import resource
import shutil
import subprocess

import pytest

from conftest import BUILD_DIR, SOURCE_DIR, clean_environment
from harmonize_tools import scale as scale_module
from harmonize_tools import scale_checks

SCRIPT = SOURCE_DIR / "scripts" / "harmonize-scale"
SMPI_BUILD = BUILD_DIR / "smpi"

pytestmark = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in ("smpicc", "smpicxx", "smpirun")),
    reason="SimGrid is not installed (Debian: libsimgrid-dev)")


BARRIERS = 1000  # 5-10 ms of simulated time: the clocks drift apart between choices


def run_script(out, *arguments, timeout=600):
    """harmonize-scale on the suite's SMPI build, writing to `out`; a later
    option wins over an earlier one (--timeout 120 per run unless given)."""
    return subprocess.run([str(SCRIPT), "--build-dir", str(SMPI_BUILD), "--timeout", "120", "-o", str(out),
                           *arguments], env=clean_environment(), capture_output=True, text=True,
                          timeout=timeout)


def scale(tmp_path, *arguments):
    out = tmp_path / "out"
    result = run_script(out, "--procs", "64", "--barriers", str(BARRIERS), *arguments)
    assert result.returncode == 0, result.stdout + result.stderr
    with open(out / "results.csv") as f:
        rows = list(csv.DictReader(f))
    return rows, out


@pytest.fixture(scope="module")
def harmonized(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("harmonized")
    rows, out = scale(tmp, "--schemes", "h2hca,hca3")
    return {row["scheme"]: row for row in rows}, out


def test_simulated_job_is_what_was_asked(harmonized):
    rows, out = harmonized
    report = json.loads((out / "report-p64-h2hca.json").read_text())
    assert report["job"]["ranks"] == 64
    assert report["job"]["nodes"] == 2, "MPI_COMM_TYPE_SHARED must group ranks by simulated host"
    assert report["job"]["mpi_library"].startswith("SMPI")
    assert report["clock"]["time_source"] == "monotonic"
    assert report["clock"]["test_clock"]["scope"] == "host"
    # What the likely bound assumes of the generated platform's paths is on record.
    assert report["config"]["HARMONIZE_PATH_ASYMMETRY"] == scale_module.PATH_ASYMMETRY
    assert report["clock"]["sync_levels"] == 2 and report["clock"]["sync_nodes"] == 2
    # Every barrier was intercepted by the statically linked shim, on every rank.
    world = report["communicators"][0]
    assert world["harmonized_calls"] == BARRIERS
    assert world["time_in_call"]["count"] == BARRIERS * 64


@pytest.mark.parametrize("scheme", ["h2hca", "hca3"])
def test_clock_and_exit_skew_against_truth(harmonized, scheme):
    row = harmonized[0][scheme]
    # Nodes are up to 2 ms apart: without a working global clock the
    # exits would be milliseconds apart. A miss in a deterministic world is
    # a defect (the slack chosen at the edge of the needs, outgrown by the
    # clocks' drift before the next choice: 167-277 of 1 000 at 64 ranks).
    assert int(row["missed"]) == 0
    assert float(row["flagged_percent"]) == 0.0
    # Resyncs are paid for, and the table says at what price per call.
    assert float(row["resync_per_call_s"]) >= 0.0
    assert int(row["bound_violations"]) == 0
    assert float(row["clock_error_max_s"]) <= float(row["error_bound_p50_s"]) * 1.5
    # The likely bound holds too, and is the tighter one.
    assert int(row["likely_violations"]) == 0
    assert float(row["likely_bound_max_s"]) < float(row["error_bound_p50_s"])
    # Tight as well as honest (issue 26): paths symmetric by construction
    # (--path-asymmetry), the likely bound is within 4x of the largest true
    # error (2.9-3.0x here, measured).
    assert float(row["likely_bound_max_s"]) <= 4 * float(row["clock_error_max_s"])
    assert float(row["clock_error_max_s"]) < 1e-6
    assert float(row["clock_error_end_s"]) < 2e-6
    assert 0 < float(row["exit_skew_p99_s"]) < 2e-6
    # Simulated time: 2 levels of ping-pongs over 1 us links take well under
    # 10 ms, and far more than the 100 ns a read of the real clock would add.
    assert 1e-5 < float(row["sync_s"]) < 1e-2


def test_the_plots_are_drawn(harmonized):
    pytest.importorskip("matplotlib")
    out = harmonized[1]
    for panel in ("sync", "clock-error", "exit-skew", "time-in-call", "bound"):
        assert (out / f"scale-{panel}.png").stat().st_size > 10_000, panel


def test_the_likely_bound_is_as_tight_as_the_paths_it_is_told(tmp_path):
    """64 ranks x 100 barriers at the script's seed, the tightest case
    measured (3.7x): within 4x of the largest true error at the platform's
    stated 0.5 %, beyond it at the library's 10 % (16x), honest at both.
    (Seeds that draw two nodes drifting alike leave a true error under 1 ns,
    which no bound comes within 4x of: docs/clock-error.md.)"""
    ratios = {}
    for share in (scale_module.PATH_ASYMMETRY, "10%"):
        rows, _ = scale(tmp_path / share, "--schemes", "h2hca", "--barriers", "100",
                        "--path-asymmetry", share)
        row = rows[0]
        assert row["path_asymmetry"] == share
        assert int(row["likely_violations"]) == 0
        ratios[share] = float(row["likely_bound_max_s"]) / float(row["clock_error_max_s"])
    assert ratios[scale_module.PATH_ASYMMETRY] <= 4, ratios
    assert ratios["10%"] > 4, ratios


def test_native_barrier_skew_is_visible(tmp_path, harmonized):
    """The negative control: the native barrier's true exit skew (mode
    observe) is far larger than the harmonized one's, so the truth measured
    above can see a skew."""
    rows, _ = scale(tmp_path, "--schemes", "h2hca", "--mode", "observe")
    native = json.loads((tmp_path / "out" / "report-p64-h2hca.json").read_text())
    native_p50 = native["communicators"][0]["truth_exit_skew"]["p50"]
    assert native_p50 > 10 * float(harmonized[0]["h2hca"]["exit_skew_p99_s"]), native_p50


def test_tsc_is_refused_in_simulation(tmp_path, harmonized):
    """SimGrid simulates clock_gettime, not the TSC."""
    platform, hosts = tmp_path / "p.xml", tmp_path / "h"
    out = harmonized[1]
    shutil.copy(out / "platform-2x32.xml", platform)
    shutil.copy(out / "hosts-2x32", hosts)
    env = clean_environment(HARMONIZE_MODE="harmonize", HARMONIZE_TIMESOURCE="tsc",
                            HARMONIZE_REPORT="none")
    result = subprocess.run(
        ["smpirun", "-np", "4", "-platform", str(platform), "-hostfile", str(hosts),
         str(SMPI_BUILD / "bin" / "harmonize-example"), "-i", "1"],
        env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    # smpirun's exit status does not tell an MPI_Abort (3.32); the library's line does.
    output = result.stderr + result.stdout
    assert "does not simulate the TSC" in output, output
    assert "stopping the job before it runs" in output, output


def test_library_variables_reach_every_simulated_rank(tmp_path):
    """--env: a timeline of a simulated job, every rank's part merged into it."""
    trace = tmp_path / "trace.json"
    result = run_script(tmp_path / "out", "--procs", "16", "--schemes", "h2hca", "--barriers", "20",
                        "--env", f"HARMONIZE_TRACE={trace}")
    assert result.returncode == 0, result.stdout + result.stderr
    events = json.loads(trace.read_text())["traceEvents"]
    barriers = [e for e in events if e["name"] == "MPI_Barrier"]
    assert sorted({e["tid"] for e in barriers}) == list(range(16))
    refused = run_script(tmp_path / "out2", "--env", "MODE=observe")
    assert refused.returncode != 0 and "--env: 'MODE=observe' is not NAME=VALUE of a library variable" in refused.stderr


def test_the_tree_merge_of_an_uneven_job_is_complete(tmp_path):
    """300 simulated ranks (not a power of two, the last node partly full):
    the report merged up the tree at MPI_Finalize counts every rank's calls
    exactly and lists every rank."""
    barriers = 20
    out = tmp_path / "out"
    result = run_script(out, "--procs", "300", "--schemes", "h2hca", "--barriers", str(barriers),
                        "--timeout", "300")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads((out / "report-p300-h2hca.json").read_text())
    assert "missing_records" not in report
    assert report["job"]["ranks"] == 300 and report["job"]["nodes"] == 10
    assert len(report["job"]["hosts"]) == 10
    world = report["communicators"][0]
    assert world["name"] == "MPI_COMM_WORLD" and world["size"] == 300
    assert world["harmonized_calls"] == barriers
    assert world["time_in_call"]["count"] == barriers * 300
    assert len(world["missed_events_per_rank"]) == 300
    assert len(world["late_events_per_rank"]) == 300
    # Rank 0 alone measures each call's exit skew, flushed or still pending.
    assert world["exit_skew"]["count"] == barriers


def test_more_ranks_than_the_kernel_can_map_are_refused_before_the_run():
    """Every simulated rank costs the host memory maps (a copy of the
    program under dlopen, a data segment under mmap): past vm.max_map_count
    the run would abort mid-start (16 384 ranks under dlopen at rank 6 518
    with the default 65 530). Pure, plus the script's refusal."""
    assert scale_checks.check_map_count(4096, 65530) is None
    assert scale_checks.check_map_count(16384, None) is None  # unknown: not refused
    problem = scale_checks.check_map_count(16384, 65530)
    assert "vm.max_map_count is 65530" in problem and "sysctl -w vm.max_map_count=262144" in problem
    assert scale_checks.check_map_count(16384, 65530, "mmap") is None
    limit = scale_checks.map_count_limit()
    if limit is None or limit > 10**8:
        pytest.skip("vm.max_map_count unreadable or too high to exceed")
    too_many = limit // scale_checks.MAPS_PER_RANK["mmap"] + 1
    result = run_script("/nonexistent/x", "--procs", str(too_many), timeout=60)
    assert result.returncode == 2 and "vm.max_map_count" in result.stderr


def test_the_privatization_is_the_last_one_given():
    how = scale_checks.privatization
    assert how(scale_module.SIMGRID_CONFIG) == "mmap"
    assert how([]) == "dlopen"  # SimGrid's default
    assert how(scale_module.SIMGRID_CONFIG + ["smpi/privatization:yes"]) == "dlopen"
    assert how(["smpi/privatization:dlopen", "smpi/privatization:mmap"]) == "mmap"
    assert how(["smpi/privatization:0"]) == "no"


C_PROGRAM = ("#include <mpi.h>\nint main(int argc, char** argv) {\n"
             "  MPI_Init(&argc, &argv);\n  MPI_Barrier(MPI_COMM_WORLD);\n  %s;\n  return 0;\n}\n")
FORTRAN_PROGRAM = ("program barrier\n  use mpi\n  integer :: ierr\n  call MPI_Init(ierr)\n"
                   "  call MPI_Barrier(MPI_COMM_WORLD, ierr)\n  call MPI_Finalize(ierr)\nend program barrier\n")


def smpi_program(tmp_path, name, *link, end="MPI_Finalize()", fortran=False):
    """A small MPI program built with smpicc (smpif90) and linked as given."""
    source = tmp_path / (name + (".f90" if fortran else ".c"))
    source.write_text(FORTRAN_PROGRAM if fortran else C_PROGRAM % end)
    program = tmp_path / name
    subprocess.run(["smpif90" if fortran else "smpicc", str(source), "-o", str(program), *link], check=True,
                   capture_output=True, timeout=120)
    return str(program)


def with_the_library(*flags):
    return ("-Wl,--whole-archive", str(SMPI_BUILD / "lib" / "libharmonize-smpi.a"), "-Wl,--no-whole-archive",
            "-lstdc++", *flags)


def test_a_program_that_would_bypass_the_library_is_refused(tmp_path):
    """Under mmap privatization a program whose calls of its own MPI_* go
    through the dynamic linker calls SimGrid's instead of the library's;
    one without the library never reaches it at all. Either run would end
    with no report: the script says so before it starts."""
    scale_module.build(SMPI_BUILD, SOURCE_DIR)  # incremental, as the script does
    check = scale_checks.check_program_binding
    assert check(str(SMPI_BUILD / "bin" / "harmonize-example"), "mmap") is None
    assert check(smpi_program(tmp_path, "functions", *with_the_library("-Wl,-Bsymbolic-functions")), "mmap") is None
    unbound = smpi_program(tmp_path, "unbound", *with_the_library())
    problem = check(unbound, "mmap")
    assert problem and "MPI_Barrier" in problem and "-Wl,-Bsymbolic" in problem, problem
    assert "smpi/privatization:dlopen" in problem
    assert check(unbound, "dlopen") is None  # RTLD_DEEPBIND: the program's own come first
    for without in (smpi_program(tmp_path, "without", "-Wl,-Bsymbolic"),
                    smpi_program(tmp_path, "stripped", "-s")):  # its dynamic symbols still say
        for how in ("mmap", "dlopen"):
            problem = check(without, how)
            assert problem and "does not contain the library" in problem and "libharmonize-smpi.a" in problem
    assert check(str(SCRIPT), "mmap") is None  # no ELF file: cannot be told
    result = run_script("/nonexistent/x", "--procs", "4", "--", unbound, timeout=300)
    assert result.returncode == 2 and "-Wl,-Bsymbolic" in result.stderr, result.stderr


@pytest.mark.skipif(shutil.which("smpif90") is None, reason="SimGrid's Fortran wrapper is not installed")
def test_the_fortran_bindings_are_checked_too(tmp_path):
    """The library's Fortran entry points (mpi_barrier_ ...) are bypassed
    the same way, named in lower case."""
    scale_module.build(SMPI_BUILD, SOURCE_DIR)
    check = scale_checks.check_program_binding
    problem = check(smpi_program(tmp_path, "unbound", *with_the_library(), fortran=True), "mmap")
    assert problem and "mpi_barrier_" in problem, problem
    assert check(smpi_program(tmp_path, "bound", *with_the_library("-Wl,-Bsymbolic"), fortran=True), "mmap") is None
    problem = check(smpi_program(tmp_path, "without", fortran=True), "mmap")
    assert problem and "does not contain the library" in problem, problem


def test_a_run_that_leaves_no_report_fails(tmp_path):
    """A program that ends before MPI_Finalize writes no report, and SMPI's
    smpirun exits 0 after an MPI_Abort (3.32). The run is a failure, named
    in the table, not a success, and draws no empty plots."""
    scale_module.build(SMPI_BUILD, SOURCE_DIR)
    program = smpi_program(tmp_path, "aborts", *with_the_library("-Wl,-Bsymbolic"),
                           end="MPI_Abort(MPI_COMM_WORLD, 3)")
    out = tmp_path / "out"
    result = run_script(out, "--procs", "4", "--schemes", "h2hca", "--", program)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "p4-h2hca failed (no report)" in result.stderr, result.stderr
    with open(out / "results.csv") as f:
        assert [row["status"] for row in csv.DictReader(f)] == ["no report"]
    assert not list(out.glob("scale-*.png"))


def test_both_privatizations_simulate_the_same_job(tmp_path):
    """The ranks' per-thread state (reentrancy guard, request tracking, the
    clock cache) is one global per simulated rank in the SMPI build: the
    ranks share one thread. Under mmap (one program, a data segment per
    rank) and dlopen (a program per rank) every figure of the report is the
    same; state leaking between ranks would change them, or hang."""
    reports = {}
    for how in ("mmap", "dlopen"):
        out = tmp_path / how
        result = run_script(out, "--procs", "96", "--schemes", "h2hca", "--barriers", "100",
                            "--timeout", "300", "--cfg", f"smpi/privatization:{how}")
        assert result.returncode == 0, result.stdout + result.stderr
        reports[how] = json.loads((out / "report-p96-h2hca.json").read_text())
    for section in ("communicators", "clock", "totals", "arrival"):
        assert reports["mmap"][section] == reports["dlopen"][section], section
    assert reports["mmap"]["communicators"][0]["harmonized_calls"] == 100


def test_what_the_host_must_hold_is_checked_before_the_run(tmp_path):
    """Under mmap privatization each rank costs an open file and a copy of
    the program's data segment in /dev/shm (64 MB in a default container):
    the limits are checked, or raised, before the simulation starts."""
    scale_module.build(SMPI_BUILD, SOURCE_DIR)
    example = str(SMPI_BUILD / "bin" / "harmonize-example")
    per_rank = scale_checks.writable_segment_bytes(example)
    assert 4096 <= per_rank <= 1 << 20 and per_rank % 4096 == 0
    assert scale_checks.check_shared_memory(4, "mmap", example) is None
    assert scale_checks.check_shared_memory(10**9, "dlopen", example) is None
    problem = scale_checks.check_shared_memory(10**9, "mmap", example)
    assert "/dev/shm" in problem and "smpi/privatization:dlopen" in problem
    assert scale_checks.raise_open_files(16) is None
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY:
        assert "hard limit" in scale_checks.raise_open_files(hard + 1)
        assert scale_checks.raise_open_files(hard) is None
        assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= hard
