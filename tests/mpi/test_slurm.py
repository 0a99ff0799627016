"""harmonize under a real Slurm (issue 47): munge, slurmctld and slurmd are
started by the fixtures (python/harmonize_tools/lab/slurm.py) in a temporary
directory, and stopped at the end, also when a test fails.

One node on this machine for srun, salloc and sbatch with both MPIs; two
nodes, one slurmd in each lab namespace, where the lab can be made (the
ranks then cross a real link and H2HCA finds the nodes Slurm chose).

Skipped, with the reason, only where the Slurm packages are absent or the
suite does not run as root; a cluster that does not start is a failure,
with its daemons' last log lines.
"""
import json
import os
import re
import subprocess
import time

import pytest

from conftest import BIN, LIBRARY, MPI_FLAVOR, MPIEXEC, SOURCE_DIR, clean_environment, run_job
from harmonize_tools.lab import cluster as lab_cluster
from harmonize_tools.lab import slurm as slurm_cluster

REASON = slurm_cluster.unavailable_reason()
SCRIPTS = SOURCE_DIR / "scripts"
EXAMPLE = BIN / "harmonize-example"
PLUGIN = {"openmpi": "pmix", "mpich": "pmi2"}[MPI_FLAVOR]
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"slurm: {REASON}")
# What harmonize-ab does when Slurm ends a run does not depend on the MPI;
# these slow tests (a time limit takes 60-90 s) run once, with Open MPI.
once = pytest.mark.skipif(MPI_FLAVOR != "openmpi", reason="Slurm's faults are the same for either MPI: "
                          "tested with Open MPI")


@pytest.fixture(scope="module")
def slurm():
    with slurm_cluster.SlurmCluster() as cluster:
        yield cluster


@pytest.fixture
def own_slurm():
    """A cluster of the test's own, for a test that takes a node down."""
    with slurm_cluster.SlurmCluster() as cluster:
        yield cluster


def in_cluster(cluster, argv, tmp_path, *, timeout=240, env=None):
    """argv run as a client of `cluster` from tmp_path; on a timeout the
    cluster's jobs are cancelled before the error is raised."""
    environment = cluster.environment(clean_environment(**(env or {})))
    command = cluster.command(["env", "-C", str(tmp_path), *map(str, argv)])
    try:
        return run_job(command, environment, timeout)
    except subprocess.TimeoutExpired:
        cluster.run(["scancel", "--full", "-u", "root"], capture_output=True, timeout=30)
        raise


def harmonize_run(*arguments):
    return [SCRIPTS / "harmonize-run", "--library", LIBRARY, *arguments]


def reports(directory, pattern="report-*.json"):
    return [json.loads(path.read_text()) for path in sorted(directory.glob(pattern))]


def summary_lines(text):
    return [line for line in text.splitlines() if line.startswith("harmonize: mode=")]


def explain(result):
    return f"status {result.returncode}\nstdout:\n{result.stdout[-3000:]}\nstderr:\n{result.stderr[-3000:]}"


def test_harmonize_run_under_srun_is_one_job_with_the_library_in_every_rank(slurm, tmp_path):
    # The form users type: the launcher after `--`. The suite's cluster has
    # MpiDefault=none, as many sites do, with which neither MPI starts a job.
    result = in_cluster(slurm, harmonize_run("--mode", "harmonize", "--set",
                                             f"HARMONIZE_REPORT={tmp_path}/report-%j.json", "--",
                                             "srun", "-n", "2", EXAMPLE), tmp_path)
    assert result.returncode == 0, explain(result)
    assert f"adding --mpi={PLUGIN}" in result.stderr, explain(result)
    [report] = reports(tmp_path)  # one report for the job, not one per task
    assert report["job"]["ranks"] == 2
    assert report["job"]["nodes"] == 1
    assert report["job"]["id"].isdigit()  # Slurm's job id names the report
    assert (tmp_path / f"report-{report['job']['id']}.json").exists()
    [line] = summary_lines(result.stderr)
    assert "mode=harmonize 2 ranks 1 node" in line, line
    world = next(c for c in report["communicators"] if c["name"] == "MPI_COMM_WORLD")
    # Both ranks went through the library: every barrier of the example was
    # a harmonized barrier of the two of them.
    assert world["size"] == 2
    assert world["harmonized_calls"] >= 9900


def test_a_plugin_that_cannot_start_the_mpi_is_told(slurm, tmp_path):
    """srun --mpi=none: Open MPI's ranks abort; MPICH's start as singletons
    that each run the benchmark alone and exit 0 - the library says so once."""
    result = in_cluster(slurm, harmonize_run("--mode", "observe", "--set",
                                             f"HARMONIZE_REPORT={tmp_path}/report-%j.json", "--",
                                             "srun", "--mpi=none", "-n", "2", EXAMPLE), tmp_path)
    assert f"harmonize-run: warning: srun --mpi=none: {'Open MPI' if MPI_FLAVOR == 'openmpi' else 'MPICH'} " \
           f"ranks need --mpi={PLUGIN}" in result.stderr, explain(result)
    if MPI_FLAVOR == "openmpi":
        assert result.returncode != 0, explain(result)
        return
    assert result.returncode == 0, explain(result)
    warnings = [line for line in result.stderr.splitlines()
                if line.startswith("harmonize: warning: srun started 2 tasks but MPI_COMM_WORLD holds 1")]
    assert len(warnings) == 1, explain(result)
    assert "MPICH needs srun --mpi=pmi2" in warnings[0]
    assert [r["job"]["ranks"] for r in reports(tmp_path)] == [1, 1]


def test_the_users_export_none_still_carries_the_library(slurm, tmp_path):
    """srun takes the last --export: a user's --export=NONE after ours would
    start the ranks without LD_PRELOAD, and the job would run unmeasured."""
    result = in_cluster(slurm, harmonize_run("--mode", "harmonize", "--set",
                                             f"HARMONIZE_REPORT={tmp_path}/report-%j.json", "--",
                                             "srun", "--export=NONE", "-n", "2", EXAMPLE), tmp_path)
    assert result.returncode == 0, explain(result)
    assert "srun --export=NONE would start the ranks without the library" in result.stderr
    [report] = reports(tmp_path)
    assert report["job"]["ranks"] == 2 and report["mode"] == "harmonize"


def test_mpiexec_inside_an_allocation(slurm, tmp_path):
    # salloc runs the command on this node with the allocation's variables;
    # the MPI's own launcher starts the ranks on the allocation.
    result = in_cluster(slurm, ["salloc", "-n", "2", *harmonize_run(
        "--mode", "harmonize", "--set", f"HARMONIZE_REPORT={tmp_path}/report-%j.json", "--",
        MPIEXEC, "-n", "2", EXAMPLE)], tmp_path)
    assert result.returncode == 0, explain(result)
    [report] = reports(tmp_path)
    assert report["job"]["ranks"] == 2
    granted = next(line for line in result.stderr.splitlines() if "Granted job allocation" in line)
    assert granted.split()[-1] == report["job"]["id"]


def test_harmonize_ab_inside_an_allocation_runs_each_run_as_a_job_step(slurm, tmp_path):
    output = tmp_path / "ab"
    result = in_cluster(slurm, ["salloc", "-n", "2", SCRIPTS / "harmonize-ab", "--runs", "1",
                                "--library", LIBRARY, "-o", output, "--", EXAMPLE], tmp_path,
                        timeout=400)
    assert result.returncode == 0, explain(result)
    assert "each run is a job step on the allocation's nodes (srun " in result.stderr, explain(result)
    for side in ("A", "B"):
        command = (output / "runs" / f"001-{side}" / "command.txt").read_text()
        assert "--launcher srun" in command
        report = json.loads((output / "runs" / f"001-{side}" / "report.json").read_text())
        assert report["job"]["ranks"] == 2  # a step of the allocation's 2 tasks, not a singleton
    assert json.loads((output / "plan.json").read_text())["command"][0] == "srun"


@once
def test_srun_asked_for_more_ranks_than_the_allocation_has_stops_at_once(slurm, tmp_path):
    output = tmp_path / "ab"
    result = in_cluster(slurm, ["salloc", "-n", "2", SCRIPTS / "harmonize-ab", "--runs", "3",
                                "--library", LIBRARY, "-o", output, "--", "srun", "-n", "4", EXAMPLE],
                        tmp_path)
    assert result.returncode == 3, explain(result)  # no usable run
    assert "every side failed its first run; not running the rest" in result.stderr
    for side in ("A", "B"):
        first = json.loads((output / "runs" / f"001-{side}" / "status.json").read_text())["errors"][0]
        assert "srun: error: Unable to create step for job" in first.splitlines()[0], first
    assert not (output / "runs" / "002-A").exists()


def test_the_sbatch_example_runs_an_ab_comparison(slurm, tmp_path):
    script = SOURCE_DIR / "examples" / "slurm" / "harmonize-ab.sbatch"
    environment = {"PATH": f"{SCRIPTS}:{os.environ['PATH']}", "HARMONIZE_LIBRARY": LIBRARY,
                   "RUNS": "1"}
    result = in_cluster(slurm, ["sbatch", "--wait", "-n", "2", "-o", tmp_path / "job-%j.out",
                                script, EXAMPLE], tmp_path, env=environment, timeout=400)
    [log] = list(tmp_path.glob("job-*.out"))
    job = log.stem.removeprefix("job-")
    assert result.returncode == 0, explain(result) + "\njob output:\n" + log.read_text()[-3000:]
    output = tmp_path / f"harmonize-ab-{job}"
    assert (output / "summary.json").is_file(), log.read_text()
    summary = json.loads((output / "summary.json").read_text())
    assert summary["command"][0] == "srun"
    assert summary["ok_runs"] == {"A": 1, "B": 1}
    assert summary["failed_runs"] == []


# The first task of the first run to pass here waits, so that the test can
# end its step; every other task runs the benchmark at once.
SLOW_ONCE = """#!/bin/sh
gate="$1"; shift
if mkdir "$gate" 2>/dev/null; then sleep 300; fi
exec "$@"
"""


def wait_for(condition, what, timeout=120):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {timeout} s"
        time.sleep(0.2)


def running_steps(cluster):
    listing = cluster.run(["squeue", "-s", "-h", "-o", "%i"], capture_output=True, text=True, timeout=30)
    return [step for step in listing.stdout.split() if re.fullmatch(r"\d+\.\d+", step)]


@once
def test_a_step_cancelled_mid_run_is_a_lost_run_with_its_reason(slurm, tmp_path):
    wrapper = tmp_path / "slow-once"
    wrapper.write_text(SLOW_ONCE)
    wrapper.chmod(0o755)
    gate, output = tmp_path / "gate", tmp_path / "ab"
    argv = ["env", "-C", str(tmp_path), "salloc", "-n", "2", SCRIPTS / "harmonize-ab", "--runs", "2",
            "--library", LIBRARY, "-o", output, "--", wrapper, gate, EXAMPLE]
    with slurm.popen([str(a) for a in argv], env=clean_environment(), stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True) as ab:
        try:
            wait_for(lambda: gate.exists() and running_steps(slurm), "the first run's step")
            [step] = running_steps(slurm)
            slurm.run(["scancel", step], check=True, timeout=30)
            stdout, stderr = ab.communicate(timeout=400)
        finally:
            if ab.poll() is None:
                ab.kill()
    assert ab.returncode == 1, f"{stdout[-2000:]}\n{stderr[-3000:]}"  # some runs failed, the rest ok
    first = json.loads((output / "runs" / "001-A" / "status.json").read_text())["errors"][0]
    assert f"Slurm cancelled step {step} " in first.splitlines()[0], first
    assert "(scancel, or an administrator)" in first.splitlines()[0]
    summary = json.loads((output / "summary.json").read_text())
    assert summary["ok_runs"] == {"A": 1, "B": 2}
    assert [run["id"] for run in summary["failed_runs"]] == ["001-A"]
    # The lost run's output is not among the results: one run of A measured.
    assert "Slurm cancelled step" in (output / "table.txt").read_text()


@once
def test_a_step_past_its_time_limit_is_a_lost_run_with_its_reason(slurm, tmp_path):
    """srun --time=1 (one minute; Slurm looks every 30 s): the step that
    outlives it is cancelled and the table says so. One side only: the limit
    holds for every step, and in CI a whole run once took the minute beside a
    CPU hog on a slow host (the other runs going on is the scancel test's)."""
    wrapper = tmp_path / "slow-once"
    wrapper.write_text(SLOW_ONCE)
    wrapper.chmod(0o755)
    output = tmp_path / "ab"
    result = in_cluster(slurm, ["salloc", "-n", "2", SCRIPTS / "harmonize-ab", "--runs", "1", "--sides", "A",
                                "--library", LIBRARY, "--launcher-arg=--time=1", "-o", output, "--",
                                wrapper, tmp_path / "gate", EXAMPLE], tmp_path, timeout=400)
    assert result.returncode == 3, explain(result)  # no usable run
    first = json.loads((output / "runs" / "001-A" / "status.json").read_text())["errors"][0]
    assert re.search(r"Slurm cancelled step \d+\.0 \(\S+\) at its time limit", first.splitlines()[0]), first
    assert "Slurm cancelled step" in (output / "table.txt").read_text()


@once
def test_a_cancelled_ab_job_is_finished_by_a_new_job(slurm, tmp_path):
    """scancel of the whole batch job mid-run: harmonize-ab stops with its
    finished runs kept; the same script with RESUME= in a new job runs the
    rest, and the interrupted run's partial output is kept aside."""
    wrapper = tmp_path / "slow-once"
    wrapper.write_text(SLOW_ONCE)
    wrapper.chmod(0o755)
    gate, output = tmp_path / "gate", tmp_path / "ab"
    script = SOURCE_DIR / "examples" / "slurm" / "harmonize-ab.sbatch"
    environment = {"PATH": f"{SCRIPTS}:{os.environ['PATH']}", "HARMONIZE_LIBRARY": LIBRARY,
                   "RUNS": "2", "OUTPUT": output}
    sbatch = ["sbatch", "-n", "2", "-o", tmp_path / "job-%j.out", script, wrapper, gate, EXAMPLE]
    submitted = in_cluster(slurm, [sbatch[0], "--parsable", *sbatch[1:]], tmp_path, env=environment)
    assert submitted.returncode == 0, explain(submitted)
    job = submitted.stdout.strip().split(";")[0]
    wait_for(lambda: gate.exists() and running_steps(slurm), "the first run's step")
    slurm.run(["scancel", job], check=True, timeout=30)
    wait_for(lambda: job not in [j for j, _ in slurm.jobs()], f"job {job} to end")
    first_log = (tmp_path / f"job-{job}.out").read_text()
    assert not (output / "summary.json").exists(), first_log

    environment["RESUME"] = environment.pop("OUTPUT")
    resumed = in_cluster(slurm, ["sbatch", "--wait", *sbatch[1:]], tmp_path, env=environment,
                         timeout=400)
    logs = "\n".join(path.read_text() for path in sorted(tmp_path.glob("job-*.out")))
    assert resumed.returncode == 0, explain(resumed) + "\njob output:\n" + logs[-3000:]
    summary = json.loads((output / "summary.json").read_text())
    assert summary["ok_runs"] == {"A": 2, "B": 2}, logs[-3000:]
    # The cancelled attempt is kept aside, listed as superseded, not measured.
    [lost] = summary["failed_runs"]
    assert lost["id"] == "001-A.failed-1" and lost["superseded"], lost
    assert lost["errors"][0].startswith(f"interrupted: Slurm cancelled step {job}.0 "), lost
    assert (output / "runs" / "001-A.failed-1").is_dir()


def node_states(cluster):
    listing = cluster.run(["sinfo", "-h", "-N", "-o", "%t"], capture_output=True, text=True, timeout=30)
    return listing.stdout.split()


@once
def test_a_node_down_mid_run_ends_the_allocation_and_a_new_one_finishes(own_slurm, tmp_path):
    """srun exits 0 when its node fails ('srun: error: Node failure on vm'):
    that run is lost with that reason, not taken for a program that prints
    no sizes, and --resume in a new allocation finishes the comparison."""
    wrapper = tmp_path / "slow-once"
    wrapper.write_text(SLOW_ONCE)
    wrapper.chmod(0o755)
    gate, output = tmp_path / "gate", tmp_path / "ab"
    ab = ["salloc", "-n", "2", SCRIPTS / "harmonize-ab", "--runs", "2", "--library", LIBRARY, "-o", output,
          "--", wrapper, gate, EXAMPLE]
    argv = ["env", "-C", str(tmp_path), *map(str, ab)]
    with own_slurm.popen(argv, env=clean_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True) as first:
        try:
            wait_for(lambda: gate.exists() and running_steps(own_slurm), "the first run's step")
            own_slurm.run(["scontrol", "update", f"nodename={own_slurm.nodes[0]}", "state=down",
                           "reason=harmonize-test"], check=True, timeout=30)
            stdout, stderr = first.communicate(timeout=300)
        finally:
            if first.poll() is None:
                first.kill()
    assert first.returncode == 3, f"{stdout[-2000:]}\n{stderr[-3000:]}"  # no usable run
    assert "the Slurm allocation has ended: continue with --resume in a new one" in stderr, stderr
    lost = json.loads((output / "runs" / "001-A" / "status.json").read_text())
    assert lost["errors"][0].startswith(f"Slurm lost node {own_slurm.nodes[0]} during the run"), lost
    assert not lost["no_sizes"]
    # The node comes back (ReturnToService=2); the site would resume it.
    own_slurm.run(["scontrol", "update", f"nodename={own_slurm.nodes[0]}", "state=resume"], timeout=30)
    wait_for(lambda: node_states(own_slurm) == ["idle"], "the node to come back idle")
    resumed = in_cluster(own_slurm, [*ab[:3], ab[3], "--resume", *ab[4:]], tmp_path, timeout=400)
    assert resumed.returncode == 0, explain(resumed)
    summary = json.loads((output / "summary.json").read_text())
    assert summary["ok_runs"] == {"A": 2, "B": 2}


@pytest.fixture
def lab_slurm():
    reason = lab_cluster.unavailable_reason()
    if reason:
        pytest.skip(f"harmonize-lab: {reason}")
    with lab_cluster.Lab((1, 1)) as lab, slurm_cluster.SlurmCluster(lab=lab) as cluster:
        yield cluster


@pytest.mark.skipif(MPI_FLAVOR == "mpich", reason="MPICH's UCX TCP transport hangs in MPI_Finalize "
                    "between nodes (openucx/ucx#8738), as in test_lab.py")
def test_srun_across_two_lab_nodes_finds_the_nodes_slurm_chose(lab_slurm, tmp_path):
    result = in_cluster(lab_slurm, harmonize_run("--mode", "harmonize", "--set",
                                                 f"HARMONIZE_REPORT={tmp_path}/report-%j.json", "--",
                                                 "srun", "-N", "2", "-n", "2", EXAMPLE), tmp_path)
    assert result.returncode == 0, explain(result)
    [report] = reports(tmp_path)
    assert report["job"]["nodes"] == 2
    assert sorted(report["job"]["hosts"]) == sorted(lab_slurm.nodes)
    [line] = summary_lines(result.stderr)
    assert "2 ranks 2 nodes" in line, line
    # mpirun inside a two-node allocation starts its daemon on the other
    # node through Slurm (Open MPI's plm/slurm), not through ssh.
    inside = in_cluster(lab_slurm, ["salloc", "-N", "2", "-n", "2", *harmonize_run(
        "--mode", "harmonize", "--set", f"HARMONIZE_REPORT={tmp_path}/mpirun-%j.json", "--",
        MPIEXEC, "-n", "2", EXAMPLE)], tmp_path, env={"OMPI_MCA_plm": "slurm"})
    assert inside.returncode == 0, explain(inside)
    [report] = reports(tmp_path, "mpirun-*.json")
    assert report["job"]["nodes"] == 2


@pytest.mark.skipif(MPI_FLAVOR == "mpich", reason="MPICH's UCX TCP transport hangs in MPI_Finalize "
                    "between nodes (openucx/ucx#8738), as in test_lab.py")
def test_the_batch_scripts_on_two_lab_nodes(lab_slurm, tmp_path):
    """Both sbatch examples end to end on an allocation of two nodes: each
    run a job step across them."""
    environment = {"PATH": f"{SCRIPTS}:{os.environ['PATH']}", "HARMONIZE_LIBRARY": LIBRARY,
                   "RUNS": "1", "COLLECTIVES": "allreduce"}
    for tool in ("harmonize-ab", "harmonize-tune"):
        script = SOURCE_DIR / "examples" / "slurm" / f"{tool}.sbatch"
        result = in_cluster(lab_slurm, ["sbatch", "--wait", "-N", "2", "-o", tmp_path / f"{tool}-%j.out",
                                        script, EXAMPLE], tmp_path, env=environment, timeout=600)
        [log] = list(tmp_path.glob(f"{tool}-*.out"))
        assert result.returncode == 0, explain(result) + "\njob output:\n" + log.read_text()[-3000:]
        output = tmp_path / log.stem
        runs = sorted(output.rglob("report.json"))
        assert runs, log.read_text()[-3000:]
        for report in runs:
            job = json.loads(report.read_text())["job"]
            assert job["nodes"] == 2 and sorted(job["hosts"]) == sorted(lab_slurm.nodes), report
    # One run per algorithm decides nothing; each algorithm ran as a step of the two nodes.
    assert re.search(r"harmonize-tune: allreduce: \d+ algorithms", log.read_text()), log.read_text()
