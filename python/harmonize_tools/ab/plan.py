"""What harmonize-ab is asked to run, kept in plan.json: the command, the
sides in order with each one's mode, preset and settings (make_plan, from
the command line), and the output directory checked against it
(prepare_directory: --resume and --aggregate continue a plan, never change it)."""
import os
from datetime import datetime
from pathlib import Path

from .. import slurm_launch
from . import decide
from . import interleaved
from . import sides as sides_module
from .files import DamagedFile, read_json, write_json

SIDE_MODES = {"A": "observe", "B": "harmonize", "C": "off"}
PLAN_KEYS_THAT_MUST_MATCH = ("command", "modes", "configs", "settings", "launcher_args", "library")


class PlanError(Exception):
    """The output directory cannot be used as asked."""


def side_definition(plan, side):
    """What runs a side: its mode, preset and own settings (besides --set's)."""
    return {"mode": plan["modes"].get(side), "config": (plan.get("configs") or {}).get(side),
            "settings": list((plan.get("settings") or {}).get(side, []))}


def describe_side(plan, side):
    """'late = harmonize HARMONIZE_ARRIVAL=rank:0:5us' for messages."""
    definition = side_definition(plan, side)
    extra = definition["settings"] + ([f"preset {definition['config']}"] if definition["config"] else [])
    return f"{side} = {definition['mode']}" + (" " + " ".join(extra) if extra else "")


def check_same_sides(existing, plan, plan_path):
    """Named sides must be the same on --resume (the same names, modes and
    settings). Runs of the predefined A, B, C only may add one of them, as
    before named sides existed."""
    if set(existing["sides"]) | set(plan["sides"]) <= set(SIDE_MODES):
        return
    if set(existing["sides"]) != set(plan["sides"]) or any(
            side_definition(existing, side) != side_definition(plan, side) for side in plan["sides"]):
        raise PlanError(f"--resume: the sides differ from those in {plan_path}, which has "
                        f"{'; '.join(describe_side(existing, s) for s in existing['sides'])}; this command "
                        f"has {'; '.join(describe_side(plan, s) for s in plan['sides'])}. Give the same "
                        "--side/--sweep options, or use another --output")


def prepare_directory(output, plan, resume, aggregate_only):
    """Create or check the output directory; returns the plan in force."""
    plan_path = output / "plan.json"
    runs_dir = output / "runs"
    nothing_run_yet = not runs_dir.is_dir() or not any(runs_dir.iterdir())
    if plan_path.exists() and not (nothing_run_yet and not aggregate_only):
        try:
            existing = read_json(plan_path, required=("command", "runs", "sides", "modes"))
        except DamagedFile as error:
            raise PlanError(f"{error}; it records how the runs were made: restore it, "
                            "or start again with another --output") from error
        if aggregate_only:
            return existing
        if not resume:
            raise PlanError(f"{output} already holds runs (plan.json); use --resume to continue them, "
                            "--aggregate to recompute the results from them, or another --output")
        check_same_sides(existing, plan, plan_path)
        differences = [key for key in PLAN_KEYS_THAT_MUST_MATCH if existing.get(key) != plan.get(key)]
        if differences:
            raise PlanError(f"--resume: this command differs from the one in {plan_path} in "
                            f"{', '.join(differences)}; use another --output")
        merged = dict(existing)
        merged["runs"] = max(existing.get("runs", 0), plan["runs"])
        merged["sides"] = list(dict.fromkeys(existing["sides"] + plan["sides"]))
        if "sequential_looks" in plan:
            # The level is shared among the looks (ab/sequential.py): fewer
            # looks than before would give the looks already made more than
            # their share, so a --resume may raise --max-runs, never lower it.
            merged["sequential_looks"] = max(plan["sequential_looks"], existing.get("sequential_looks") or 0)
        write_json(plan_path, merged)
        return merged
    if aggregate_only:
        raise PlanError(f"--aggregate: {plan_path} not found; nothing to aggregate")
    (output / "runs").mkdir(parents=True, exist_ok=True)
    write_json(plan_path, plan)
    return plan


def parse_sides(text):
    sides = [s.strip().upper() for s in text.split(",") if s.strip()]
    unknown = [s for s in sides if s not in SIDE_MODES]
    if not sides or unknown or len(set(sides)) != len(sides):
        raise ValueError(f"--sides {text!r}: expected distinct sides from A, B, C (e.g. A,B or A,B,C)")
    return sides


def named_sides(args):
    """[(name, definition)] of --side and --sweep, in the order given."""
    found = []
    for option, text in args.named:
        where = f"{option} {text!r}"
        if option == "--side":
            expanded = [sides_module.parse_side(text)]
        else:
            expanded = sides_module.parse_sweep(text)
        found += [(name, sides_module.define_side(name, settings, where), where) for name, settings in expanded]
    seen = {}
    for name, _, where in found:
        if name in seen:
            same = "twice" if seen[name] == where else f"by {seen[name]} and by {where}"
            raise ValueError(f"side {name!r} is defined {same}; side names must be distinct "
                             "(name the sides yourself with --side NAME:...)")
        seen[name] = where
    return [(name, definition) for name, definition, _ in found]


def preset(path_text, where):
    path = Path(path_text)
    if not path.is_file():
        raise ValueError(f"{where}preset {path_text}: no such file")
    return str(path.resolve())


def given_command(args):
    """The benchmark command as given after `--`."""
    command = list(args.command)
    return command[1:] if command[:1] == ["--"] else command


def make_plan(args, script_dir, environ=None):
    command = slurm_launch.allocation_step(given_command(args),
                                           os.environ if environ is None else environ)
    if not command and not args.aggregate:
        raise ValueError("no benchmark command; put it after `--` (see --help)")
    named = named_sides(args)
    if args.sides is not None:
        sides = parse_sides(args.sides)
    else:
        sides = [] if named else ["A", "B"]
    modes = {side: SIDE_MODES[side] for side in SIDE_MODES}
    for item in args.side_mode:
        side, _, mode = item.partition("=")
        if side.upper() not in modes or mode not in ("off", "observe", "harmonize"):
            raise ValueError(f"--side-mode {item!r}: expected SIDE=MODE with SIDE in A,B,C and "
                             "MODE off|observe|harmonize (named sides take MODE= in --side)")
        modes[side.upper()] = mode
    configs = {}
    for side in "ABC":
        chosen = getattr(args, f"config_{side.lower()}") or args.config
        if chosen:
            configs[side] = preset(chosen, "")
    settings = {"all": list(args.set)}
    for side in "ABC":
        if getattr(args, f"set_{side.lower()}"):
            settings[side] = list(getattr(args, f"set_{side.lower()}"))
    for name, definition in named:
        modes[name] = definition["mode"]
        if definition["config"] or args.config:
            configs[name] = preset(definition["config"] or args.config, f"side {name}: ")
        settings[name] = definition["settings"]
        sides.append(name)
    for side in sides:
        sides_module.check_harmonize_only(modes[side], settings["all"] + settings.get(side, []),
                                          f"side {side}")
    limits = decide.budget(args)
    if args.interleave:
        sides, modes, settings = interleaved.fold_sides(sides, modes, settings, configs)
    if args.runs < 1:
        raise ValueError("--runs must be at least 1")
    if args.stop_stale and not args.resume:
        raise ValueError("--stop-stale goes with --resume (it stops a job left running in the output directory)")
    if args.t0 is not None and not args.aggregate and args.t0 not in sides:
        raise ValueError(f"--t0 {args.t0}: no such side (the sides: {', '.join(sides)})")
    if limits and not args.interleave:
        decide.check_sides(comparison_pair(sides), modes)
    library = str(Path(args.library).resolve()) if args.library else None
    plan = {"version": 1, "command": command, "runs": args.runs, "sides": sides, "modes": modes,
            "configs": configs, "settings": settings, "launcher_args": list(args.launcher_arg),
            "library": library, "created": datetime.now().isoformat(timespec="seconds"),
            "harmonize_run": str(script_dir / "harmonize-run")}
    if limits and args.interleave:
        # Interleaved --until-decided: the looks its level is divided among
        # (ab/sequential.py), fixed before the first look.
        plan["sequential_looks"] = limits[0]
    return plan


def comparison_pair(sides):
    """The two sides compared per call: A and B when both run, else the first two."""
    if "A" in sides and "B" in sides:
        return ("A", "B")
    return (sides[0], sides[1]) if len(sides) > 1 else (sides[0], sides[0])
