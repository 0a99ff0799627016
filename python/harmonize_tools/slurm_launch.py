"""Which of srun's MPI plugins (`srun --mpi=...`) an MPI's ranks need.

srun starts the ranks itself and hands them their job through a process
management interface chosen by `--mpi` (default: the site's MpiDefault,
often `none`). Measured with Debian's builds under Slurm 22.05: Open MPI 4.1
ranks need `pmix` (with `none` MPI_Init aborts), MPICH 4.0 ranks need `pmi2`
(with `none` or `pmix` every rank starts as a singleton of one process, runs
the whole benchmark alone and writes its own report, with status 0).

    needed_plugin(mpi)                  'pmix' | 'pmi2' | None
    requested_plugin(args)              the --mpi of a command line, or None
    site_default(environ)               SLURM_MPI_TYPE, else MpiDefault (scontrol)
    available_plugins(environ)          `srun --mpi=list`, or None
    plugin_advice(mpi, requested, default, available)
                                        (arguments to add, note to print)
    plugin_arguments(mpi, args, environ, srun)
                                        the same, asking this machine's Slurm
    merge_export(args, items)           the user's own --export, with ours in it
    allocation_step(command, environ)   `srun` + command inside an allocation
"""
import re
import shutil
import subprocess

from .common import MPI_NAMES, launcher_options_end, split_launcher

NEEDED = {"openmpi": "pmix", "mpich": "pmi2"}


def needed_plugin(mpi):
    return NEEDED.get(mpi)


def requested_plugin(args):
    """`--mpi=X` or `--mpi X` among srun's options (before the program), else None."""
    args = args[:launcher_options_end(args)]
    for i, arg in enumerate(args):
        if arg.startswith("--mpi="):
            return arg.partition("=")[2]
        if arg == "--mpi" and i + 1 < len(args):
            return args[i + 1]
    return None


def _ask(argv, environ):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20, env=environ,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def site_default(environ, scontrol="scontrol"):
    """The plugin srun takes without --mpi: SLURM_MPI_TYPE, else the
    controller's MpiDefault; None when neither can be learnt."""
    if environ.get("SLURM_MPI_TYPE"):
        return environ["SLURM_MPI_TYPE"]
    text = _ask([scontrol, "show", "config"], environ)
    found = re.search(r"^MpiDefault\s*=\s*(\S+)", text or "", re.MULTILINE)
    return found.group(1) if found else None


def available_plugins(environ, srun="srun"):
    """The plugin names `srun --mpi=list` prints (pmix's versions included), or None."""
    text = _ask([srun, "--mpi=list"], environ)
    if text is None:
        return None
    names = re.findall(r"^\s+(\S+)\s*$", text, re.MULTILINE)
    versions = re.search(r"versions available:\s*(.+)$", text, re.MULTILINE)
    if versions:
        names += [v.strip() for v in versions.group(1).split(",") if v.strip()]
    return names


def works(mpi, plugin):
    """Whether ranks of `mpi` start as one job under `plugin`, as far as known."""
    if plugin is None or mpi not in NEEDED:
        return None
    if plugin == "none":
        return False
    return plugin.startswith(NEEDED[mpi])


def plugin_advice(mpi, requested, default, available):
    """(srun arguments to add, a note or None). A plugin the user asked for
    is kept and only warned about; without one, the site's default is
    replaced by the needed plugin when it is known not to work."""
    needed = needed_plugin(mpi)
    if needed is None:
        return [], None
    name = MPI_NAMES[mpi]
    if requested is not None:
        if works(mpi, requested) is False:
            return [], (f"warning: srun --mpi={requested}: {name} ranks need --mpi={needed} "
                        f"({_failure(mpi)})")
        return [], None
    if default is None or works(mpi, default) is not False:
        return [], None
    if available is not None and not any(p.startswith(needed) for p in available):
        return [], (f"warning: srun's default MPI plugin here is '{default}' and it has no "
                    f"{needed} plugin (srun --mpi=list: {', '.join(available) or 'none'}); "
                    f"{name} ranks need it ({_failure(mpi)})")
    return [f"--mpi={needed}"], (f"note: srun's default MPI plugin here is '{default}', with which "
                                 f"{_failure(mpi)}: adding --mpi={needed}")


def plugin_arguments(mpi, args, environ, srun="srun"):
    """plugin_advice for srun's options `args`, the default and the plugins
    asked of this machine's Slurm (only when they matter)."""
    requested = requested_plugin(args)
    default = None if requested is not None else site_default(environ)
    available = None
    if requested is None and works(mpi, default) is False:
        available = available_plugins(environ, srun)
    return plugin_advice(mpi, requested, default, available)


def _failure(mpi):
    if mpi == "mpich":
        return "MPICH ranks start as separate singletons"
    return "Open MPI ranks abort in MPI_Init"


def merge_export(args, items):
    """(args, the user's --export value or None). srun takes the last
    --export it is given: one of the user's (`--export=NONE`, a list without
    ALL) would start the ranks without LD_PRELOAD and the library's settings,
    so ours (`items`, NAME=VALUE or NAME) are put into it instead."""
    end = launcher_options_end(args)
    for position in range(end - 1, -1, -1):
        word = args[position]
        if word.startswith("--export="):
            value, width = word.partition("=")[2], 1
        elif word == "--export" and position + 1 < len(args):
            value, width = args[position + 1], 2
        else:
            continue
        kept = [] if value.upper() == "NONE" else [v for v in value.split(",") if v]
        merged = "--export=" + ",".join(kept + list(items))
        return args[:position] + [merged] + args[position + width:], value
    return list(args), None


def allocation(environ):
    """The job id when this process runs inside a Slurm allocation (salloc,
    an sbatch script) and not inside one of its steps, else None."""
    if environ.get("SLURM_JOB_ID") and not environ.get("SLURM_STEP_ID"):
        return environ["SLURM_JOB_ID"]
    return None


def allocation_step(command, environ):
    """A benchmark command without a launcher, given inside an allocation,
    runs as a job step on the allocation's nodes (`srun` + command) rather
    than as a singleton on the node the script runs on; any other command is
    kept as it is."""
    launcher, _ = split_launcher(command)
    if launcher is None and command and allocation(environ) and shutil.which("srun"):
        return ["srun", *command]
    return list(command)
