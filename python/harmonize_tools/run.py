"""harmonize-run: launch any MPI program with libharmonize.so preloaded.

usage: harmonize-run [options] [launcher options] -- program [args...]

Options understood by harmonize-run (everything else before `--` is handed
to the launcher unchanged, in order):

  --mode off|observe|harmonize   set HARMONIZE_MODE
  --config FILE                  set HARMONIZE_CONFIG (made absolute; must exist)
  --set KEY=VALUE                set HARMONIZE_KEY=VALUE (repeatable; KEY may be
                                 given with or without the HARMONIZE_ prefix,
                                 in any case: `--set slack=20us`); an MPI
                                 library's own setting (OMPI_MCA_*, MPIR_CVAR_*)
                                 is set as it is, for the launcher's MPI only
  --library PATH                 the libharmonize.so to preload
  --launcher PATH                the launcher to use (default: the program's
                                 own when it starts with one, `-- srun -n 2
                                 ./a.out`; else mpiexec, mpirun or srun, the
                                 first found on PATH)
  --launcher-kind KIND           openmpi | mpich | srun | direct; default:
                                 detected from `<launcher> --version`.
                                 `direct` runs the program without a launcher
                                 (MPI singleton) with the environment set.
  --dry-run                      print the command (with its environment
                                 assignments) and do not run it
  --echo                         print the command on stderr before running it
  -h, --help                     this text

The library is looked up in this order: --library, $HARMONIZE_LIBRARY, the
build tree next to the sources (<script dir>/../build/lib/libharmonize.so),
the install prefix (<script dir>/../lib, ../lib64, ../lib/<multiarch>).
It must be built against the launcher's MPI (Open MPI or MPICH): when the
one found is not, another build beside the sources (build-*/lib) that is
replaces it, with a note; --library or $HARMONIZE_LIBRARY of the other MPI,
or no matching build, is an error that says what to do. A library path
holding a space or a colon is refused (the loader splits LD_PRELOAD there).

How the environment reaches the ranks:
  Open MPI   -x LD_PRELOAD -x HARMONIZE_...   (values from the launcher's env)
  MPICH      -genv NAME VALUE for each variable
  srun       --export=ALL,LD_PRELOAD=...,HARMONIZE_...=...
srun also gets --mpi=pmix (Open MPI) or --mpi=pmi2 (MPICH) when none is
given and the site's default (SLURM_MPI_TYPE, MpiDefault) cannot start the
library's MPI, with a note. An existing LD_PRELOAD is kept, after libharmonize.so. Every HARMONIZE_*
variable of the caller's environment is forwarded as well (HARMONIZE_LIBRARY
is consumed here and not forwarded), and so is every OMPI_MCA_* or
MPIR_CVAR_* given with --set. A setting of the other MPI (MPIR_CVAR_* with
Open MPI's launcher, OMPI_MCA_* with MPICH's) is a usage error: it would
change nothing.

Exit status: the launcher's (which is the program's), 2 for a usage error
(including a library of the other MPI given with --library), 127 when the
launcher or a library for the launcher's MPI cannot be found.
"""
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from . import slurm_launch
from .common import (LIBRARY_PREFIX, MPI_NAMES, UnknownLauncher, detect_kind, library_mpi, setting_mpi,
                     setting_variable, split_launcher, tools_dir)
from .run_library import NotFound, UsageError, check_preloadable, find_library, match_launcher_mpi

PREFIX = LIBRARY_PREFIX
MODES = ("off", "observe", "harmonize")
KINDS = ("openmpi", "mpich", "srun", "direct")
# Consumed by this script, not a library setting (the library accepts and
# ignores it when a launcher forwards the whole environment, as MPICH does).
SCRIPT_ONLY_VARIABLES = ("HARMONIZE_LIBRARY",)
DEFAULT_LAUNCHERS = ("mpiexec", "mpirun", "srun")
LAUNCHERS_BY_KIND = {
    "openmpi": ("mpirun.openmpi", "mpiexec.openmpi", "mpiexec", "mpirun"),
    "mpich": ("mpiexec.hydra", "mpiexec.mpich", "mpiexec", "mpirun"),
    "srun": ("srun",),
}


def usage_line():
    return "usage: harmonize-run [options] [launcher options] -- program [args...] (see --help)"


def split_arguments(argv):
    """(our options + launcher options, program) split at the first `--`."""
    if "--" not in argv:
        if any(a in ("-h", "--help") for a in argv):
            return argv, []
        raise UsageError("missing `--` before the program; " + usage_line())
    cut = argv.index("--")
    program = argv[cut + 1:]
    if not program:
        raise UsageError("no program after `--`; " + usage_line())
    return argv[:cut], program


def parse_options(argv):
    """Our options as a dict; unrecognised arguments become launcher options."""
    options = {"mode": None, "config": None, "settings": [], "library": None,
               "launcher": None, "kind": None, "dry_run": False, "verbose": False,
               "help": False, "launcher_args": []}
    valued = {"--mode": "mode", "--config": "config", "--set": "settings",
              "--library": "library", "--launcher": "launcher", "--launcher-kind": "kind"}
    i = 0
    while i < len(argv):
        arg = argv[i]
        name, eq, inline = arg.partition("=")
        if name in valued:
            if eq:
                value = inline
            elif i + 1 < len(argv):
                i += 1
                value = argv[i]
            else:
                raise UsageError(f"{name} needs a value; " + usage_line())
            key = valued[name]
            if key == "settings":
                options["settings"].append(value)
            else:
                options[key] = value
        elif arg == "--dry-run":
            options["dry_run"] = True
        elif arg == "--echo":
            options["verbose"] = True
        elif arg in ("-h", "--help"):
            options["help"] = True
        else:
            options["launcher_args"].append(arg)
        i += 1
    if options["mode"] is not None and options["mode"] not in MODES:
        raise UsageError(f"--mode {options['mode']!r}: expected one of {', '.join(MODES)}")
    if options["kind"] is not None and options["kind"] not in KINDS:
        raise UsageError(f"--launcher-kind {options['kind']!r}: expected one of {', '.join(KINDS)}")
    for setting in options["settings"]:
        setting_to_variable(setting)  # a bad --set is a usage error before anything else
    return options


def setting_to_variable(setting):
    """`slack=20us` / `HARMONIZE_SLACK=20us` -> ('HARMONIZE_SLACK', '20us');
    `OMPI_MCA_btl=self,tcp` -> ('OMPI_MCA_btl', 'self,tcp')."""
    key, eq, value = setting.partition("=")
    key = key.strip()
    if not eq or not key:
        raise UsageError(f"--set {setting!r}: expected KEY=VALUE")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
        raise UsageError(f"--set {setting!r}: {key!r} is not a variable name")
    return setting_variable(key), value


def check_settings_fit(options, kind):
    """An MPI library's setting for the other MPI would change nothing: say so
    before the run (srun and direct runs may carry either)."""
    for setting in options["settings"]:
        name, _ = setting_to_variable(setting)
        owner = setting_mpi(name)
        if owner and kind in MPI_NAMES and owner != kind:
            raise UsageError(f"--set {setting!r}: {name} is {MPI_NAMES[owner]}'s setting, but the launcher "
                             f"is {MPI_NAMES[kind]}'s: it would change nothing")


def find_launcher(explicit, kind, dry_run=False):
    if kind == "direct":
        return None
    if explicit:
        found = shutil.which(explicit)
        if found:
            return found
        if dry_run and kind:
            return explicit
        raise NotFound(f"--launcher {explicit}: not found or not executable")
    names = LAUNCHERS_BY_KIND.get(kind, DEFAULT_LAUNCHERS)
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    if dry_run and kind:
        # A command line for a machine that has this launcher, not this one.
        return names[0]
    raise NotFound(f"no MPI launcher found on PATH (tried {', '.join(names)}); use --launcher PATH")


def preload_value(library, existing):
    """Our library first, then whatever was preloaded before (without duplicates)."""
    parts = [str(library)]
    for entry in re.split(r"[:\s]+", existing or ""):
        if entry and entry != str(library):
            parts.append(entry)
    return ":".join(parts)


def rank_environment(options, library, environ):
    """The variables every rank must see, as an ordered dict."""
    variables = {"LD_PRELOAD": preload_value(library, environ.get("LD_PRELOAD"))}
    for name in sorted(environ):
        if name.startswith(PREFIX) and name not in SCRIPT_ONLY_VARIABLES:
            variables[name] = environ[name]
    if options["config"] is not None:
        config = Path(options["config"])
        if not config.is_file():
            raise UsageError(f"--config {options['config']}: no such file")
        variables["HARMONIZE_CONFIG"] = str(config.resolve())
    if options["mode"] is not None:
        variables["HARMONIZE_MODE"] = options["mode"]
    for setting in options["settings"]:
        name, value = setting_to_variable(setting)
        if name in SCRIPT_ONLY_VARIABLES:
            raise UsageError(f"--set {setting!r}: {name} is not a library setting; use --library")
        variables[name] = value
    return variables


def propagation_arguments(kind, variables):
    """Launcher arguments that hand `variables` to every rank."""
    if kind == "openmpi":
        arguments = []
        for name in variables:
            arguments += ["-x", name]
        return arguments
    if kind == "mpich":
        arguments = []
        for name, value in variables.items():
            arguments += ["-genv", name, value]
        return arguments
    if kind == "srun":
        return ["--export=" + ",".join(["ALL"] + srun_export_items(variables))]
    return []


def srun_export_items(variables):
    """srun splits --export at commas: such a value is passed by name and
    taken from srun's own environment (which we set as well)."""
    return [name if "," in value else f"{name}={value}" for name, value in variables.items()]


def srun_command(launcher, options, program, variables, added):
    """srun's command line: our --export first, unless the user gave one,
    which then carries our variables (it would win and drop them)."""
    given = options["launcher_args"] + program
    merged, users = slurm_launch.merge_export(given, srun_export_items(variables))
    if users is None:
        return [launcher] + propagation_arguments("srun", variables) + added + given
    if "ALL" not in users.upper().split(","):
        print(f"harmonize-run: note: srun --export={users} would start the ranks without the library: "
              "LD_PRELOAD and the HARMONIZE_ variables are added to it", file=sys.stderr, flush=True)
    return [launcher] + added + merged


def launcher_in_program(options, program):
    """`-- srun -n 2 ./a.out` (as harmonize-ab takes a command): the command's
    own launcher is the launcher, unless --launcher is given or the kind is
    `direct` (then the command is the program)."""
    if options["launcher"] is None and options["kind"] != "direct":
        launcher, rest = split_launcher(program)
        if launcher is not None and rest:
            options["launcher"] = launcher
            return rest
    return program


def srun_arguments(options, program, library, launcher, environ):
    """srun's --mpi when the site's default cannot start this MPI's ranks
    (docs/slurm.md); says so on stderr."""
    added, note = slurm_launch.plugin_arguments(library_mpi(library)[0],
                                                options["launcher_args"] + program, environ, launcher)
    if note:
        print(f"harmonize-run: {note}", file=sys.stderr, flush=True)
    return added


def build_command(options, program, environ, script_dir):
    """(argv, child environment, variables for the ranks)."""
    program = launcher_in_program(options, program)
    library, origin = find_library(options["library"], script_dir, environ)
    kind = options["kind"]
    launcher = find_launcher(options["launcher"], kind, options["dry_run"])
    if kind is None:
        try:
            kind = detect_kind(launcher)
        except UnknownLauncher as error:
            raise UsageError(str(error)) from error
    check_settings_fit(options, kind)
    library, origin = match_launcher_mpi(library, origin, kind, launcher, script_dir, environ)
    check_preloadable(library, origin)
    variables = rank_environment(options, library, environ)
    child = {k: v for k, v in environ.items() if k not in SCRIPT_ONLY_VARIABLES}
    child.update(variables)
    if kind == "direct":
        argv = options["launcher_args"] + program
    elif kind == "srun":
        added = srun_arguments(options, program, library, launcher, child)
        argv = srun_command(launcher, options, program, variables, added)
    else:
        argv = [launcher] + propagation_arguments(kind, variables) + options["launcher_args"] + program
    return argv, child, variables


def printable(argv, variables):
    assignments = [f"{name}={shlex.quote(value)}" for name, value in variables.items()]
    return " ".join(assignments + [shlex.quote(a) for a in argv])


def main(argv=None, script_dir=None):
    """harmonize-run with `argv` (default: sys.argv[1:]); `script_dir` is where
    the launcher lies (scripts/ or the prefix's bin/): the library is looked
    up from there."""
    argv = sys.argv[1:] if argv is None else argv
    script_dir = Path(script_dir) if script_dir is not None else tools_dir(__file__)
    try:
        ours, program = split_arguments(argv)
        options = parse_options(ours)
        if options["help"]:
            print(__doc__.strip())
            return 0
        command, child, variables = build_command(options, program, dict(os.environ), script_dir)
    except UsageError as error:
        print(f"harmonize-run: error: {error}", file=sys.stderr)
        return 2
    except NotFound as error:
        print(f"harmonize-run: error: {error}", file=sys.stderr)
        return 127
    if options["dry_run"]:
        print(printable(command, variables))
        return 0
    if options["verbose"]:
        print(f"harmonize-run: {printable(command, variables)}", file=sys.stderr, flush=True)
    try:
        # exec: signals reach the launcher directly and its status is ours.
        os.execvpe(command[0], command, child)
    except OSError as error:
        print(f"harmonize-run: error: cannot run {command[0]}: {error.strerror}", file=sys.stderr)
        return 127
