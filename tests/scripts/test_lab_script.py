"""scripts/harmonize-lab: arguments, and a lab is always torn down (issue 14).

The MPI runs across a lab are in tests/mpi/test_lab.py; here the command
itself: what it refuses, and that neither SIGTERM nor a SIGKILL of its owner
leaves namespaces behind (the next lab, or --clean, sweeps those).
"""
import signal
import subprocess
import time

import pytest

from conftest import SOURCE_DIR, clean_environment
from harmonize_tools.lab.cluster import PREFIX, unavailable_reason

LAB = SOURCE_DIR / "scripts" / "harmonize-lab"
REASON = unavailable_reason()
needs_lab = pytest.mark.skipif(bool(REASON), reason=f"harmonize-lab: {REASON}")


def lab_namespaces(owner):
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [line.split()[0] for line in listing.splitlines()
            if line.startswith(f"{PREFIX}{owner}-")]


def run(*args):
    return subprocess.run([LAB, *args], capture_output=True, text=True, env=clean_environment())


@pytest.mark.parametrize("args,message", [
    ([], "no command"),
    (["--layout", "2,0", "--", "true"], "layout '2,0' is not valid"),
    (["--nodes", "two", "--", "true"], "--nodes 'two' is not valid"),
    (["--frobnicate", "--", "true"], "unknown option '--frobnicate'"),
])
def test_usage_errors_say_what_is_wrong(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in result.stderr, result.stderr


def test_check_says_whether_labs_can_be_made():
    result = run("--check")
    assert result.returncode == (2 if REASON else 0)
    assert (REASON or "labs can be made here") in result.stdout


@needs_lab
def test_the_command_runs_on_the_first_node_and_its_status_is_returned():
    result = run("--layout", "2,1", "--", "sh", "-c", "hostname; exit 3")
    assert result.returncode == 3
    assert result.stdout.strip().endswith("-n0"), result.stdout
    assert "2 nodes" in result.stderr and "2 slot(s)" in result.stderr


@needs_lab
@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_lab_never_outlives_its_owner(how):
    owner = subprocess.Popen([LAB, "--nodes", "3", "--", "sleep", "60"], env=clean_environment(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(lab_namespaces(owner.pid)) < 4 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(lab_namespaces(owner.pid)) == 4  # three nodes and the hub
    owner.send_signal(getattr(signal, how))
    owner.wait(timeout=30)
    if how == "SIGTERM":
        assert owner.returncode == 130
        assert "torn down" in owner.stderr.read()
    else:  # nothing could run in the owner: --clean (or the next lab) sweeps
        assert len(lab_namespaces(owner.pid)) == 4
        assert run("--clean").returncode == 0
    assert lab_namespaces(owner.pid) == []
