"""harmonize-lab: try harmonize across nodes on one machine.

usage: harmonize-lab [--nodes N | --layout S1,S2,...] [--no-pin] [--delay TIME] [--slurm] -- COMMAND [ARGS...]
       harmonize-lab --check
       harmonize-lab --clean

Makes a small cluster of Linux network namespaces (root only), runs COMMAND
as a process of its first node, and tears the cluster down when COMMAND ends,
fails or is interrupted. Inside COMMAND, mpiexec (Open MPI or MPICH) spans
the lab: its nodes are nodes to MPI (hostnames, MPI_COMM_TYPE_SHARED, shared
memory within a node, TCP between nodes over a bridge).

  --nodes N          N nodes of one slot each (default 2)
  --layout S1,S2,..  slots (ranks) per node, e.g. 2,1,1: uneven nodes
  --no-pin           let nodes run on any core (default: node i runs on core
                     i mod cores, so a node's library sees the cores it has)
  --delay TIME       add TIME (tc syntax: 100us, 1ms) to every packet a node
                     sends; needs the kernel's netem qdisc
  --slurm            run a Slurm cluster on the lab (munge, slurmctld on the
                     first node, a slurmd on each; Debian: slurmctld slurmd
                     slurm-client munge): COMMAND may srun, salloc, sbatch
  --check            say whether labs can be made here, and why not
  --clean            remove what labs left behind whose owner was killed
  -h, --help         this text

Example (from the source tree, after scripts/test or a build in build/):
  scripts/harmonize-lab --layout 1,1 -- scripts/harmonize-run --mode harmonize -n 2 -- \\
      build/bin/harmonize-example

  scripts/harmonize-lab --slurm -- sbatch --wait -N 2 examples/slurm/harmonize-ab.sbatch \\
      $PWD/build/bin/harmonize-example

Exit status: COMMAND's; 2 for a usage error or when labs cannot be made here.
"""
import signal
import sys

from . import slurm
from .cluster import Lab, LabError, parse_layout, sweep_stale, unavailable_reason


class Interrupted(Exception):
    pass


def _raise_interrupted(signum, _frame):
    raise Interrupted(signal.Signals(signum).name)


def parse(argv):
    options = {"layout": (1, 1), "pin": True, "delay": None, "command": [], "action": "run",
               "slurm": False}
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--":
            options["command"] = args
            break
        if arg in ("-h", "--help"):
            options["action"] = "help"
            return options
        if arg in ("--check", "--clean"):
            options["action"] = arg[2:]
        elif arg == "--no-pin":
            options["pin"] = False
        elif arg == "--slurm":
            options["slurm"] = True
        elif arg in ("--nodes", "--layout", "--delay"):
            if not args:
                raise ValueError(f"{arg} needs a value")
            value = args.pop(0)
            if arg == "--delay":
                options["delay"] = value
                continue
            if arg == "--nodes":
                if not value.isdigit():
                    raise ValueError(f"--nodes '{value}' is not valid: expected a number of nodes")
                value = ",".join(["1"] * int(value))
            options["layout"] = parse_layout(value)
        else:
            raise ValueError(f"unknown option '{arg}' (the command goes after --)")
    if options["action"] == "run" and not options["command"]:
        raise ValueError("no command: harmonize-lab [options] -- COMMAND [ARGS...]")
    return options


def main(argv=None, script_dir=None):
    """harmonize-lab with `argv` (default: sys.argv[1:]); `script_dir`, the
    launcher's directory, is not needed (the command names its own tools)."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        options = parse(argv)
    except ValueError as error:
        print(f"harmonize-lab: {error}", file=sys.stderr)
        return 2
    if options["action"] == "help":
        print(__doc__.strip())
        return 0
    reason = unavailable_reason()
    if options["action"] == "check":
        print(f"harmonize-lab: {reason or 'labs can be made here'}")
        return 2 if reason else 0
    if reason:
        print(f"harmonize-lab: cannot make a lab here: {reason}", file=sys.stderr)
        return 2
    if options["action"] == "clean":
        sweep_stale()
        slurm.sweep_stale()
        return 0
    if options["slurm"] and slurm.unavailable_reason():
        print(f"harmonize-lab: --slurm: {slurm.unavailable_reason()}", file=sys.stderr)
        return 2
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _raise_interrupted)
    try:
        with Lab(options["layout"], pin=options["pin"], delay=options["delay"]) as lab:
            print(lab.describe(), file=sys.stderr)
            if not options["slurm"]:
                return lab.run(options["command"]).returncode
            with slurm.SlurmCluster(lab=lab) as cluster:
                print(cluster.describe(), file=sys.stderr)
                return cluster.run(options["command"]).returncode
    except (LabError, slurm.SlurmError) as error:
        print(f"harmonize-lab: {error}", file=sys.stderr)
        return 2
    except (Interrupted, KeyboardInterrupt) as why:
        print(f"harmonize-lab: interrupted ({why or 'SIGINT'}); the lab is torn down",
              file=sys.stderr)
        return 130
