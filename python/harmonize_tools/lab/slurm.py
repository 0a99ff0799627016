"""A real Slurm cluster started for a while: munge, slurmctld, one slurmd per node.

Everything lives in one temporary directory (the munge key, slurm.conf, state,
spool, logs) and every process started carries a marker variable, so that
down() finds and stops them all, the job steps' processes included, also after
a failed test. Clients reach the cluster through SLURM_CONF (environment()).

Nodes: without a lab, one node that is this machine (slurmd answers on
127.0.0.1); with a Lab, one slurmd in each lab node's namespaces, and the
controller on the first node, so that srun, the step daemons and the ranks
talk over the lab's links as on a cluster. Slurm is told each node has
`cpus` CPUs (more than the machine's 2 cores: the tests oversubscribe, as
they do with mpiexec).

Clusters are named after the process that made them (hzslurm<pid>-...): a
cluster whose owner died (SIGKILL, a CI timeout) is swept by the next one.
"""
import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from ..common import signal_group
from .cluster import Made, alive

PREFIX = "hzslurm"
MARKER = "HZLAB_SLURM_CLUSTER"  # in every daemon's, step's and rank's environment
TOOLS = ("munged", "slurmctld", "slurmd", "srun", "salloc", "sbatch", "scancel", "sinfo", "squeue")
PACKAGES = "slurmctld slurmd slurm-client munge"
_serial = itertools.count()


class SlurmError(RuntimeError):
    """Slurm cannot be started here (one line, says why; the logs' last lines follow)."""


def unavailable_reason():
    """None when a cluster can be started here, else one line saying why not."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None
               and not Path("/usr/sbin", tool).exists()]
    if missing:
        return f"{', '.join(missing)} not installed (Debian: apt-get install {PACKAGES})"
    if os.geteuid() != 0:
        return "slurmd runs job steps as their users and needs root (run as root, as CI does)"
    return None


def _tool(name):
    return shutil.which(name) or str(Path("/usr/sbin", name))


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def marked_processes(value):
    """Pids of the processes whose environment holds MARKER=value."""
    wanted = f"{MARKER}={value}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if wanted in environ.split(b"\0"):
            pids.append(int(entry.name))
    return pids


def _kill_marked(value):
    for pid in marked_processes(value):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def cgroup_mounts():
    """Shell commands that mount this machine's cgroup file systems again
    under /sys/fs/cgroup: `ip netns exec` gives a lab node a fresh /sys
    without them, and slurmd will not start without cgroups (22.05 loads its
    cgroup plugin whatever the task and proctrack plugins). A v1 hierarchy
    mounted with the same options is the same hierarchy."""
    commands = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) < 4 or not fields[1].startswith("/sys/fs/cgroup"):
            continue
        kind, where, options = fields[2], fields[1], fields[3]
        if kind == "tmpfs" and where == "/sys/fs/cgroup":
            commands.append(f"mount -t tmpfs -o mode=755 none {where}")
        elif kind in ("cgroup", "cgroup2"):
            kept = ",".join(o for o in options.split(",") if o not in ("rw", "relatime"))
            mount = f"mount -t {kind}" + (f" -o {kept}" if kept else "") + f" none {where}"
            commands.append(f"mkdir -p {where} && {mount}" if where != "/sys/fs/cgroup" else mount)
    return " && ".join(commands)


def sweep_stale():
    """Stops the processes and removes the directories of clusters whose owner is dead."""
    for directory in Path(tempfile.gettempdir()).glob(f"{PREFIX}[0-9]*-*"):
        owner = directory.name[len(PREFIX):].split("-")[0]
        if owner.isdigit() and not alive(int(owner)):
            _kill_marked(directory.name)
            shutil.rmtree(directory, ignore_errors=True)


SLURM_CONF = """\
# Written by harmonize_tools.lab.slurm for one test cluster; removed with it.
ClusterName={name}
SlurmctldHost={controller}({controller_address})
SlurmctldPort={controller_port}
SlurmdPort={node_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={root}/munge/socket
CredType=cred/munge
StateSaveLocation={root}/state
SlurmdSpoolDir={root}/spool/%n
# Each node's own /tmp: the nodes of a lab share one file system, and PMIx's
# step directories (spmix_appdir_<uid>_<job>.<step>) would collide there.
TmpFS={root}/tmp/%n
SlurmctldPidFile={root}/slurmctld.pid
SlurmdPidFile={root}/slurmd-%n.pid
SlurmctldLogFile={root}/log/slurmctld.log
SlurmdLogFile={root}/log/slurmd-%n.log
# No cgroups in a container: processes are tracked by their parents.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# The node's CPUs as this file says, not as the machine has: oversubscribed
# tests ask for more ranks than cores, as they do of mpiexec.
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmdTimeout=60
KillWait=5
MessageTimeout=30
{nodes}
PartitionName=hz Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
"""


class SlurmCluster(Made):
    """`with SlurmCluster() as slurm: slurm.run(["srun", "-n", "2", ...])` -
    always stopped; `lab` (a Lab that is up) makes one node per lab node."""

    def __init__(self, *, lab=None, cpus=8):
        self.lab = lab
        self.cpus = cpus
        self.name = f"{PREFIX}{os.getpid()}-{next(_serial)}"
        self.root = Path(tempfile.gettempdir()) / self.name
        self.conf = self.root / "slurm.conf"
        if lab is None:
            self.nodes = [socket.gethostname()]
            self.addresses = ["127.0.0.1"]
        else:
            self.nodes = list(lab.hostnames)
            self.addresses = list(lab.addresses)
        self._daemons = []

    # ---------------------------------------------------------------- set-up

    def up(self, timeout=60):
        sweep_stale()
        for part in ("munge", "state", "log", *(f"{kind}/{node}" for node in self.nodes
                                                for kind in ("spool", "tmp"))):
            (self.root / part).mkdir(parents=True, exist_ok=True)
        (self.root / "munge").chmod(0o700)
        key = self.root / "munge" / "key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self._write_conf()
        munge = self.root / "munge"
        self._start([_tool("munged"), "--foreground", "--force", f"--socket={munge}/socket",
                     f"--key-file={key}", f"--pid-file={munge}/pid", f"--seed-file={munge}/seed",
                     f"--log-file={self.root}/log/munged.log"], "munged")
        self._wait(lambda: (munge / "socket").exists(), timeout, "munged did not create its socket")
        self._start([_tool("slurmctld"), "-D", "-i", "-f", str(self.conf)], "slurmctld")
        for index, node in enumerate(self.nodes):
            self._start([_tool("slurmd"), "-D", "-f", str(self.conf), "-N", node], f"slurmd-{node}",
                        node=index)
        self._wait(self._nodes_idle, timeout, "the nodes did not come up idle")

    def _write_conf(self):
        cpus = f"CPUs={self.cpus} Sockets=1 CoresPerSocket={self.cpus} ThreadsPerCore=1"
        nodes = "\n".join(f"NodeName={node} NodeAddr={address} {cpus} State=UNKNOWN"
                          for node, address in zip(self.nodes, self.addresses))
        self.conf.write_text(SLURM_CONF.format(
            name=self.name.replace("-", "x"), root=self.root, nodes=nodes,
            controller=self.nodes[0], controller_address=self.addresses[0],
            controller_port=_free_port(), node_port=_free_port()))

    def _start(self, argv, name, node=0):
        if self.lab is not None and name.startswith("slurmd"):
            mounts = cgroup_mounts()
            argv = ["sh", "-c", (f"{mounts} && " if mounts else "") + 'exec "$@"', "sh", *argv]
        if self.lab is not None and name != "munged":
            # munged's socket is a file, which every namespace sees.
            argv = self.lab.command(argv, node)
        log = open(self.root / "log" / f"{name}.out", "wb")
        try:
            self._daemons.append((name, subprocess.Popen(
                argv, env=self.environment(), stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True)))
        finally:
            log.close()

    def _wait(self, ready, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name, process in self._daemons:
                if process.poll() is not None:
                    raise SlurmError(f"{name} exited with status {process.returncode}"
                                     f"{self.log_tail(name)}")
            if ready():
                return
            time.sleep(0.2)
        raise SlurmError(f"{what} within {timeout} s{self.log_tail()}")

    def _nodes_idle(self):
        states = self.run(["sinfo", "-h", "-N", "-o", "%N %t"], capture_output=True, text=True,
                          timeout=30)
        idle = [line.split()[0] for line in states.stdout.splitlines()
                if len(line.split()) == 2 and line.split()[1] == "idle"]
        return states.returncode == 0 and sorted(idle) == sorted(self.nodes)

    def log_tail(self, name=None, lines=6):
        """The last lines of a daemon's log (all daemons' without a name), for errors."""
        logs = sorted((self.root / "log").glob(f"{name}*" if name else "*"))
        text = []
        for log in logs:
            try:
                tail = log.read_text(errors="replace").splitlines()[-lines:]
            except OSError:
                continue
            if tail:
                text.append(f"\n  {log.name}:\n    " + "\n    ".join(tail))
        return "".join(text)

    # ---------------------------------------------------------------- use

    def environment(self, base=None):
        """Variables that make the Slurm commands use this cluster."""
        env = dict(os.environ if base is None else base)
        if self.lab is not None:
            env = self.lab.environment(env)
        env.update({"SLURM_CONF": str(self.conf), MARKER: self.name})
        return env

    def command(self, argv):
        """argv run where the cluster's clients run (the lab's first node)."""
        return self.lab.command(argv, 0) if self.lab is not None else [str(a) for a in argv]

    def run(self, argv, *, env=None, **kwargs):
        """subprocess.run of a Slurm client or a script that calls them."""
        return subprocess.run(self.command(argv), env=self.environment(env), **kwargs)

    def popen(self, argv, *, env=None, **kwargs):
        return subprocess.Popen(self.command(argv), env=self.environment(env), **kwargs)

    def jobs(self):
        """[(job id, state)] of the jobs the controller still knows."""
        queue = self.run(["squeue", "-h", "-o", "%i %T"], capture_output=True, text=True,
                         timeout=30)
        return [tuple(line.split()[:2]) for line in queue.stdout.splitlines() if line.strip()]

    # ---------------------------------------------------------------- tear-down

    def down(self):
        """Cancels the jobs, stops the daemons and every process they started."""
        if any(name == "slurmctld" and process.poll() is None for name, process in self._daemons):
            self.run(["scancel", "--full", "--quiet", "-u", "root"], capture_output=True,
                     timeout=30)
        for _, process in reversed(self._daemons):
            signal_group(process, signal.SIGTERM)
        for _, process in self._daemons:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        _kill_marked(self.name)
        for _, process in self._daemons:
            signal_group(process, signal.SIGKILL)
            process.wait()
        self._daemons.clear()
        shutil.rmtree(self.root, ignore_errors=True)

    def describe(self):
        where = "this machine" if self.lab is None else f"lab {self.lab.prefix}"
        return (f"slurm: cluster {self.name} on {where}: "
                f"{', '.join(f'{n} ({a})' for n, a in zip(self.nodes, self.addresses))}, "
                f"{self.cpus} CPUs each; SLURM_CONF={self.conf}")
