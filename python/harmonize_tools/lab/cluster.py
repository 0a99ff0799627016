"""A cluster of network namespaces that MPI cannot tell from a real one.

Each node is a network namespace with a veth into a bridge that lives in a hub
namespace, its own hostname (a UTS namespace, entered per command), its own
TMPDIR and, where the machine has cores enough, its own core. The addresses
exist only inside those namespaces. Open MPI starts its daemons through an
rsh agent that enters the node's namespaces; MPICH's Hydra uses the same
agent as its ssh. Processes of one node share memory (/dev/shm is common, the
hostname tells the libraries which ranks are local); nodes talk TCP.

Namespaces are named after the process that made them (hzlab<pid>-...), so
a lab whose owner died (SIGKILL, a CI timeout) is swept by the next one.
"""
import itertools
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

_serial = itertools.count()
PREFIX = "hzlab"
SUBNET = "10.213.0"  # /24, only inside the lab's namespaces


class LabError(RuntimeError):
    """The lab cannot be set up here (one line, says why)."""


def _ip(*args, check=True):
    result = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and result.returncode != 0:
        raise LabError(f"ip {' '.join(args)}: {result.stderr.strip() or 'failed'}")
    return result


def unavailable_reason():
    """None when labs can be made here, else one line saying why not."""
    if os.geteuid() != 0:
        return "network namespaces need root (run as root, as CI does)"
    for tool in ("ip", "unshare", "taskset"):
        if shutil.which(tool) is None:
            return f"'{tool}' is not installed (Debian: iproute2, util-linux)"
    probe = f"{PREFIX}probe{os.getpid()}"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"cannot create a network namespace: {made.stderr.strip()}"
    try:
        bridge = _ip("-n", probe, "link", "add", "br0", "type", "bridge", check=False)
        if bridge.returncode != 0:
            return f"cannot create a bridge in a namespace: {bridge.stderr.strip()}"
        uts = subprocess.run(["unshare", "--uts", "true"], capture_output=True, text=True)
        if uts.returncode != 0:
            return f"cannot create a UTS namespace: {uts.stderr.strip()}"
    finally:
        _ip("netns", "del", probe, check=False)
    return None


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _lab_namespaces():
    listing = _ip("netns", "list", check=False).stdout.split("\n")
    return [line.split()[0] for line in listing if line.startswith(PREFIX)]


def _kill_namespace(name):
    pids = _ip("netns", "pids", name, check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
    # The veths go with the namespace; a namespace whose processes have not
    # exited yet is only unlinked, and the kernel frees it with them.
    _ip("netns", "del", name, check=False)


def sweep_stale():
    """Removes the namespaces and directories of labs whose owner is dead."""
    for name in _lab_namespaces():
        owner = name[len(PREFIX):].split("-")[0]
        if owner.isdigit() and not alive(int(owner)):
            _kill_namespace(name)
    for directory in Path(tempfile.gettempdir()).glob(f"{PREFIX}[0-9]*-*"):
        owner = directory.name[len(PREFIX):].split("-")[0]
        if owner.isdigit() and not alive(int(owner)):
            shutil.rmtree(directory, ignore_errors=True)


def parse_layout(text):
    """'2,1,1' -> (2, 1, 1): ranks (slots) per node, 1 to 64 nodes."""
    try:
        layout = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise ValueError(f"layout '{text}' is not valid: expected slots per node, e.g. 2,1,1")
    if not 1 <= len(layout) <= 64 or min(layout) < 1:
        raise ValueError(f"layout '{text}' is not valid: expected 1 to 64 nodes of at least 1 slot")
    return layout


AGENT = r"""#!/bin/sh
# harmonize-lab agent: `agent [ssh options] HOST COMMAND...` runs COMMAND on
# the lab node HOST (its address or its name), as ssh would: the words are
# joined and given to sh. Open MPI's rsh launcher and MPICH's Hydra call it.
while [ "${1#-}" != "$1" ]; do shift; done
host="$1"; shift
case "$host" in
%(cases)s
  *) echo "harmonize-lab agent: unknown node '$host'" >&2; exit 255 ;;
esac
exec "%(enter)s" "$node" sh -c "$*"
"""

ENTER = r"""#!/bin/sh
# harmonize-lab: `enter NODE COMMAND...` runs COMMAND as a process of lab node
# NODE: its network namespace, a UTS namespace with its hostname, its TMPDIR
# and its cores.
node="$1"; shift
case "$node" in
%(cases)s
  *) echo "harmonize-lab: unknown node '$node'" >&2; exit 255 ;;
esac
export TMPDIR="%(root)s/$node/tmp"
exec ip netns exec "%(prefix)s-$node" unshare --uts sh -c \
  'hostname "$0" && pin="$1" && shift && exec $pin "$@"' "$hostname" "$pin" "$@"
"""


class Made:
    """`with X(...) as x:` runs up(), and down() when the block ends or up() fails."""

    def __enter__(self):
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, *exc):
        self.down()
        return False


class Lab(Made):
    """`with Lab((2, 1)) as lab: lab.run([...])` - always torn down."""

    def __init__(self, layout=(1, 1), *, pin=True, delay=None):
        self.layout = tuple(layout)
        self.pin = pin
        self.delay = delay  # one-way, added on every node's link ("100us"), needs sch_netem
        self.prefix = f"{PREFIX}{os.getpid()}-{next(_serial)}"
        self.root = Path(tempfile.gettempdir()) / self.prefix
        self.nodes = [f"n{i}" for i in range(len(self.layout))]
        self.addresses = [f"{SUBNET}.{i + 1}" for i in range(len(self.layout))]
        self.hostnames = [f"{self.prefix}-{node}" for node in self.nodes]
        cores = sorted(os.sched_getaffinity(0))
        self.cores = [str(cores[i % len(cores)]) for i in range(len(self.layout))]
        # Nodes share a core when there are more nodes than cores; the library
        # on one node cannot see the other's ranks on it.
        self.cores_shared = len(self.layout) > len(cores)
        self._made = []

    @property
    def namespaces(self):
        return [f"{self.prefix}-{node}" for node in self.nodes]

    def up(self):
        sweep_stale()
        hub = f"{self.prefix}-hub"
        _ip("netns", "add", hub)
        self._made.append(hub)
        _ip("-n", hub, "link", "add", "br0", "type", "bridge")
        _ip("-n", hub, "link", "set", "br0", "up")
        for node, namespace, address in zip(self.nodes, self.namespaces, self.addresses):
            _ip("netns", "add", namespace)
            self._made.append(namespace)
            _ip("-n", namespace, "link", "set", "lo", "up")
            _ip("-n", namespace, "link", "add", "eth0", "type", "veth", "peer", "name", node,
                "netns", hub)
            _ip("-n", hub, "link", "set", node, "master", "br0", "up")
            _ip("-n", namespace, "addr", "add", f"{address}/24", "dev", "eth0")
            _ip("-n", namespace, "link", "set", "eth0", "up")
            if self.delay:
                self._add_delay(namespace)
            (self.root / node / "tmp").mkdir(parents=True, exist_ok=True)
        self._write_launch_files()

    def _add_delay(self, namespace):
        qdisc = subprocess.run(["tc", "-n", namespace, "qdisc", "add", "dev", "eth0", "root",
                                "netem", "delay", self.delay], capture_output=True, text=True)
        if qdisc.returncode != 0:
            why = qdisc.stderr.strip() or "tc failed"
            if "unknown" in why.lower():
                why = "this kernel has no sch_netem (the netem qdisc)"
            raise LabError(f"cannot add a delay of {self.delay} to the lab's links: {why}")

    def _write_launch_files(self):
        enter_cases = []
        agent_cases = []
        for node, hostname, address, core in zip(self.nodes, self.hostnames, self.addresses,
                                                 self.cores):
            pin = f"taskset -c {core}" if self.pin else "env"
            enter_cases.append(f"  {node}) hostname={hostname} pin='{pin}' ;;")
            agent_cases.append(f"  {address}|{hostname}|{node}) node={node} ;;")
        self.enter = self.root / "enter"
        self.enter.write_text(ENTER % {"cases": "\n".join(enter_cases), "root": self.root,
                                       "prefix": self.prefix})
        self.agent = self.root / "agent"
        self.agent.write_text(AGENT % {"cases": "\n".join(agent_cases), "enter": self.enter})
        for script in (self.enter, self.agent):
            script.chmod(0o755)
        self.hostfile = self.root / "hostfile"  # Open MPI
        self.hostfile.write_text("".join(f"{address} slots={slots}\n"
                                         for address, slots in zip(self.addresses, self.layout)))
        self.hydra_hostfile = self.root / "hosts.hydra"  # MPICH
        self.hydra_hostfile.write_text("".join(f"{address}:{slots}\n"
                                               for address, slots in zip(self.addresses, self.layout)))

    def down(self):
        for namespace in reversed(self._made):
            _kill_namespace(namespace)
        self._made.clear()
        shutil.rmtree(self.root, ignore_errors=True)

    def environment(self, base=None):
        """Variables that make mpiexec (Open MPI or MPICH) span the lab."""
        env = dict(os.environ if base is None else base)
        subnet = f"{SUBNET}.0/24"
        env.update({
            "OMPI_MCA_plm_rsh_agent": str(self.agent),
            "OMPI_MCA_plm_rsh_no_tree_spawn": "1",
            "OMPI_MCA_orte_default_hostfile": str(self.hostfile),
            "OMPI_MCA_oob_tcp_if_include": subnet,
            "OMPI_MCA_btl_tcp_if_include": subnet,
            # Every daemon believes it owns the machine: bound ranks of two
            # nodes would be pinned onto the same core. The lab pins nodes.
            "OMPI_MCA_hwloc_base_binding_policy": "none",
            "HYDRA_LAUNCHER": "ssh",
            "HYDRA_LAUNCHER_EXEC": str(self.agent),
            "HYDRA_HOST_FILE": str(self.hydra_hostfile),
            "HYDRA_IFACE": "eth0",
        })
        # MPICH's network module is UCX, which would find the other nodes'
        # shared memory (one kernel): between nodes, TCP on the lab's link.
        env.setdefault("UCX_TLS", "tcp")
        env.setdefault("UCX_NET_DEVICES", "eth0")
        return env

    def command(self, argv, node=0):
        """argv run as a process of lab node `node`."""
        return [str(self.enter), self.nodes[node], *map(str, argv)]

    def run(self, argv, *, env=None, timeout=None, node=0, **kwargs):
        """subprocess.run of argv on node `node` with the lab's environment;
        on a timeout every process of the lab is killed before it is raised."""
        try:
            return subprocess.run(self.command(argv, node), env=self.environment(env),
                                  timeout=timeout, **kwargs)
        except subprocess.TimeoutExpired:
            for namespace in self.namespaces:
                for pid in _ip("netns", "pids", namespace, check=False).stdout.split():
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass
            raise

    def describe(self):
        lines = [f"harmonize-lab: {len(self.layout)} nodes on {SUBNET}.0/24 ({self.prefix})"]
        for node, hostname, address, slots, core in zip(self.nodes, self.hostnames, self.addresses,
                                                        self.layout, self.cores):
            where = f"core {core}" if self.pin else "any core"
            lines.append(f"  {node}: {address} {hostname}, {slots} slot(s), {where}")
        if self.delay:
            lines.append(f"  links: {self.delay} added each way (netem)")
        if self.pin and self.cores_shared:
            lines.append("  note: more nodes than cores, so nodes share cores; a node's library "
                         "cannot see another node's ranks on its core")
        return "\n".join(lines)


def quoted(argv):
    return " ".join(shlex.quote(str(a)) for a in argv)
