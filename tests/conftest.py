"""Shared helpers for the application tests (tests/mpi, tests/scripts).

CTest passes the build through the environment (tests/mpi_launch.cmake); when
run by hand, point HZTEST_BUILD_DIR at a build tree. The tools' package
(python/harmonize_tools) is put on sys.path here, so that every test imports
it by its name (`from harmonize_tools.ab import stats`).
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("HZTEST_SOURCE_DIR", Path(__file__).resolve().parents[1]))
BUILD_DIR = Path(os.environ.get("HZTEST_BUILD_DIR", SOURCE_DIR / "build"))
MPIEXEC = os.environ.get("HZTEST_MPIEXEC", "mpiexec")
MPI_FLAVOR = os.environ.get("HZTEST_MPI_FLAVOR", "openmpi")
LIBRARY = BUILD_DIR / "lib" / "libharmonize.so"
BIN = BUILD_DIR / "bin"
PROGRAMS = BUILD_DIR / "tests" / "programs"
PYTHON = "/usr/bin/python3"  # Debian's, which owns python3-mpi4py
PYTHON_DIR = SOURCE_DIR / "python"  # the harmonize_tools package (docs/python.md)
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))


# Open MPI picks its transport by BTL; MPICH (ch4:ucx) by UCX's, with the
# processes of one host kept from shared memory: name -> (btl, environment).
TRANSPORTS = ({"shm": ("self,vader", {}), "tcp": ("self,tcp", {})} if MPI_FLAVOR == "openmpi" else
              {"shm": (None, {}), "tcp": (None, {"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp"})})

# MPICH 4.0.2's UCX TCP transport hangs in MPI_Finalize now and then beside a
# CPU hog (openucx/ucx#8738, as test_lab.py says): 2-4 runs in 12, with or
# without the library. Its shared-memory case still runs.
UCX_TCP_HANG = pytest.mark.skipif(MPI_FLAVOR == "mpich", reason="MPICH's UCX TCP transport hangs in "
                                  "MPI_Finalize beside a load (openucx/ucx#8738)")
# The transports' names as a test's parameters, TCP skipped where it hangs.
TRANSPORT_PARAMS = [pytest.param(name, marks=UCX_TCP_HANG) if name == "tcp" else name for name in TRANSPORTS]


def clean_environment(**overrides):
    """The caller's environment without any HARMONIZE_* variable, plus overrides."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARMONIZE_")}
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    # Keep Open MPI from probing absent network devices / launch agents.
    env.setdefault("OMPI_MCA_plm_rsh_agent", "")
    env.update({k: str(v) for k, v in overrides.items()})
    return env


def mpiexec_command(nprocs, program, *, preload=True, btl=None, env_names=()):
    """An mpiexec command line for `nprocs` ranks of `program` (a list).

    Variables are handed to the ranks through the launcher's environment; Open
    MPI forwards the caller's environment to local ranks, MPICH's Hydra too.
    """
    cmd = [MPIEXEC, "-n", str(nprocs)]
    if MPI_FLAVOR == "openmpi":
        cmd += ["--oversubscribe", "--bind-to", "none"]
        if btl:
            cmd += ["--mca", "btl", btl]
    return cmd + list(program)


def run_job(cmd, environment, timeout):
    """`cmd` run to its end, its output captured; past `timeout` seconds the
    launcher and its ranks are killed together (its process group), and
    subprocess.TimeoutExpired raised. subprocess.run's timeout kills the
    launcher alone: ranks hung in MPI_Finalize kept its pipes open, and the
    test, then CTest past its own timeout, waited on them for good. A process
    group, not a new session: with the kernel's autogroup a session is a
    scheduling group of its own, and the ranks then got a third of a core
    beside a CPU hog instead of half (the suite ran twice as long, and a
    clock in mode observe came out 300 us off the truth)."""
    with subprocess.Popen(cmd, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          process_group=0) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            try:
                stdout, stderr = process.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                stdout, stderr = "", "(a rank outside the launcher's process group kept the output open)"
            raise subprocess.TimeoutExpired(cmd, timeout, output=stdout, stderr=stderr) from None
    return subprocess.CompletedProcess(cmd, process.returncode, stdout, stderr)


def run_mpi(nprocs, program, *, preload=True, env=None, btl=None, timeout=120, check=False):
    """Run `program` on `nprocs` ranks, optionally with libharmonize preloaded."""
    environment = clean_environment(**(env or {}))
    if preload:
        environment["LD_PRELOAD"] = str(LIBRARY)
    cmd = mpiexec_command(nprocs, [str(p) for p in program], btl=btl)
    result = run_job(cmd, environment, timeout)
    if check and result.returncode != 0:
        raise AssertionError(
            f"{' '.join(cmd)} exited {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}")
    return result


def mpi4py_flavor():
    """Which MPI Debian's mpi4py is linked against (without starting MPI)."""
    probe = subprocess.run(
        [PYTHON, "-c", "import glob, mpi4py; print(glob.glob(mpi4py.__path__[0] + '/MPI*.so')[0])"],
        capture_output=True, text=True)
    if probe.returncode != 0:
        return None
    linked = subprocess.run(["ldd", probe.stdout.strip()], capture_output=True, text=True).stdout
    return "mpich" if "libmpich" in linked else "openmpi" if "libmpi.so" in linked else None


def skip_unless_mpi4py_matches():
    """Skips the test unless Debian's mpi4py runs on the MPI under test."""
    flavor = mpi4py_flavor()
    if flavor is None:
        pytest.skip("mpi4py (python3-mpi4py) is not installed")
    if flavor != MPI_FLAVOR:
        pytest.skip(f"mpi4py is built for {flavor}, the library under test for {MPI_FLAVOR}")


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def world_of(report):
    """MPI_COMM_WORLD's record in a library report."""
    return next(c for c in report["communicators"] if c["name"] == "MPI_COMM_WORLD")


def timed_report(tmp_path, name, program, *, clocks, mode="harmonize", btl=None, ranks=2,
                 extra=None):
    """The library report of `program` run on `ranks` ranks with test clocks
    `clocks` (HARMONIZE_TEST_CLOCK_*), and the run itself."""
    path = tmp_path / f"{name}.json"
    env = {"HARMONIZE_MODE": mode, "HARMONIZE_REPORT": path, **clocks, **(extra or {})}
    result = run_mpi(ranks, program, env=env, btl=btl, timeout=300, check=True)
    return json.loads(path.read_text()), result


def keys_of(comm):
    """A communicator's timed collective keys by (operation, bytes, root)."""
    return {(k["operation"], k["bytes"], k["root"]): k for k in comm["collectives"]["keys"]}


def harmonize_lines(text):
    """Lines the library printed (they all start with 'harmonize:')."""
    return [line for line in text.splitlines() if line.startswith("harmonize:")]


def find_number(pattern, text):
    match = re.search(pattern, text)
    assert match, f"pattern {pattern!r} not found in:\n{text}"
    return float(match.group(1))


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def true_arrivals(stdout, valid_only=False, phase=None):
    """arrival_truth's output: (call, every rank's true entry into the
    allreduce) per call (valid_only: the calls after a barrier every process
    left in time; phase: the calls of that phase only)."""
    rows, current = [], None
    for line in stdout.splitlines():
        words = line.split()
        if line.startswith("phase "):
            current = words[1]
        elif line.startswith("arrivals ") and (phase is None or current == phase):
            if words[2] == "1" or not valid_only:
                rows.append((int(words[1]), [float(word) for word in words[3:]]))
    return rows


def rerun_until(run, ok, waits=(5, 15, 30)):
    """run() until ok(its result), a fresh run after each wait (seconds);
    the last result either way, for the caller to assert on. A load burst
    beside the test (a CPU hog, a simulation in the other ctest slot, for a
    minute) passes; a broken library fails every run."""
    result = run()
    for wait in waits:
        if ok(result):
            break
        time.sleep(wait)
        result = run()
    return result
