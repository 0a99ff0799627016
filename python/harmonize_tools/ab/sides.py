"""Named sides and --sweep: pure functions over the command line's text, no
I/O (an arrival pattern's delay is common.pattern_delta's).

A side is a name with a mode, an optional preset and settings: HARMONIZE_*
ones, and the MPI library's own (OMPI_MCA_*, MPIR_CVAR_*), e.g. one side per
collective algorithm.
A, B and C are predefined (observe, harmonize, off); `--side NAME:KEY=VALUE,...`
defines more, `--sweep KEY=V1,V2,...` one per value. Errors are ValueError
with a message naming the argument, which the command line turns into a
usage error.
"""
import re

from ..common import LIBRARY_PREFIX, pattern_delta, setting_variable, slug

PREFIX = LIBRARY_PREFIX
MODES = ("off", "observe", "harmonize")
PREDEFINED = {"A": "observe", "B": "harmonize", "C": "off"}
NAME = re.compile(r"[A-Za-z0-9_.-]+")
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A comma starts a new setting only where KEY= follows (a key of any case,
# like the first): ARRIVAL=ranks:0,3:10us keeps its comma.
SETTING_BOUNDARY = re.compile(r",(?=[A-Za-z_][A-Za-z0-9_]*=)")
# Meaningful in mode harmonize only: the library refuses them elsewhere.
ONLY_IN_MODE_HARMONIZE = ("HARMONIZE_ARRIVAL", "HARMONIZE_ALTERNATE")
# Set by harmonize-ab or harmonize-run themselves, never per side.
RESERVED = {"HARMONIZE_REPORT": "harmonize-ab sets it per run",
            "HARMONIZE_LIBRARY": "use --library"}


def variable_name(key):
    """`arrival` / `HARMONIZE_ARRIVAL` -> 'HARMONIZE_ARRIVAL' (as harmonize-run --set);
    an MPI library's setting as it is (common.setting_variable)."""
    return setting_variable(key)


def split_settings(text):
    """'MODE=observe,ARRIVAL=ranks:0,3:10us' -> [('HARMONIZE_MODE', 'observe'),
    ('HARMONIZE_ARRIVAL', 'ranks:0,3:10us')]; ValueError for a bad item."""
    settings = []
    for item in SETTING_BOUNDARY.split(text):
        key, eq, value = item.partition("=")
        if not eq or not KEY.fullmatch(key):
            raise ValueError(f"{item!r} is not KEY=VALUE (KEY a HARMONIZE_ variable, prefix optional, "
                             "or an MPI library's OMPI_MCA_* or MPIR_CVAR_*)")
        if not value:
            raise ValueError(f"{key}= has no value")
        settings.append((variable_name(key), value))
    return settings


def parse_side(text):
    """`--side NAME:KEY=VALUE,...` -> (name, [(variable, value), ...])."""
    name, colon, rest = text.partition(":")
    if not colon or not rest:
        raise ValueError(f"--side {text!r}: expected NAME:KEY=VALUE[,KEY=VALUE...], "
                         "e.g. late5:ARRIVAL=rank:0:5us")
    check_name(name, f"--side {text!r}")
    try:
        settings = split_settings(rest)
    except ValueError as error:
        raise ValueError(f"--side {text!r}: {error}") from error
    return name, settings


def check_name(name, where):
    if not NAME.fullmatch(name):
        raise ValueError(f"{where}: side name {name!r} may hold only letters, digits, '_', '.' and '-'")
    if ".failed-" in name:
        raise ValueError(f"{where}: side name {name!r} holds '.failed-', which marks runs set aside")
    if name in PREDEFINED:
        raise ValueError(f"{where}: {name} is a predefined side (--sides A,B,C, --set-{name.lower()}); "
                         "choose another name")


def define_side(name, settings, where):
    """A side's definition {mode, config, settings} from its (variable, value)
    pairs: MODE picks the mode (default harmonize), CONFIG the preset."""
    definition = {"mode": "harmonize", "config": None, "settings": []}
    seen = set()
    for variable, value in settings:
        if variable in seen:
            raise ValueError(f"{where}: {variable} given twice")
        seen.add(variable)
        if variable in RESERVED:
            raise ValueError(f"{where}: {variable} cannot be set per side ({RESERVED[variable]})")
        if variable == "HARMONIZE_MODE":
            if value not in MODES:
                raise ValueError(f"{where}: MODE={value!r}: expected one of {', '.join(MODES)}")
            definition["mode"] = value
        elif variable == "HARMONIZE_CONFIG":
            definition["config"] = value
        else:
            if variable == "HARMONIZE_ARRIVAL":
                try:
                    pattern_delta(value)
                except ValueError as error:
                    raise ValueError(f"{where}: {error}") from error
            definition["settings"].append(f"{variable}={value}")
    check_harmonize_only(definition["mode"], definition["settings"], where)
    return definition


def check_harmonize_only(mode, settings, where):
    """ARRIVAL and ALTERNATE on a side not in mode harmonize: every run would
    stop at MPI_Init; say so before the first run."""
    if mode == "harmonize":
        return
    for setting in settings:
        key, _, value = setting.partition("=")
        name = variable_name(key.strip())
        if name in ONLY_IN_MODE_HARMONIZE and value.strip() not in ("none", "0"):
            raise ValueError(f"{where}: {name}={value} needs MODE=harmonize (the side runs in "
                             f"mode {mode}; the library would stop every run)")


# ------------------------------------------------------------------ --sweep

def expand_sweep_values(items):
    """The values of a sweep from its comma-separated items: an item with a
    ':' is a value of its own, one without replaces the last ':' field of
    the last value that had one ('rank:0:0us', '5us' -> 'rank:0:5us';
    'none', 'rank:0:1us', '5us' -> ..., 'rank:0:5us'). A 'ranks:' value
    takes the items that follow until its delay (its rank list has commas)."""
    values = []
    for item in items:
        if values and values[-1].startswith("ranks:") and values[-1].count(":") < 2:
            values[-1] += "," + item
            continue
        template = next((value for value in reversed(values) if ":" in value), None)
        if ":" in item or template is None:
            values.append(item)
        else:
            values.append(template.rsplit(":", 1)[0] + ":" + item)
    return values


def sweep_names(values):
    """Side names of a sweep's values: the last ':' field when the values
    differ only there ('rank:0:5us' -> '5us'), else the whole value made
    filesystem-safe ('linear:10us' -> 'linear_10us'); '-2', '-3' ... where
    two values would get the same name."""
    heads = {value.rsplit(":", 1)[0] for value in values if ":" in value}
    only_last = len(heads) == 1 and all(":" in value for value in values)
    names = []
    for value in values:
        name = slug(value.rsplit(":", 1)[1] if only_last else value, "side")
        if name in PREDEFINED:
            name += "_"  # A, B and C are the predefined sides
        base, number = name, 1
        while name in names:
            number += 1
            name = f"{base}-{number}"
        names.append(name)
    return names


def parse_sweep(text):
    """`--sweep KEY=V1,V2,...` -> [(name, [(variable, value)]), ...], one per value."""
    key, eq, rest = text.partition("=")
    if not eq or not KEY.fullmatch(key) or not rest:
        raise ValueError(f"--sweep {text!r}: expected KEY=V1,V2,..., "
                         "e.g. ARRIVAL=rank:0:0us,1us,5us,20us")
    items = rest.split(",")
    if any(not item for item in items):
        raise ValueError(f"--sweep {text!r}: an empty value (two commas in a row, or one at an end)")
    values = expand_sweep_values(items)
    if len(set(values)) != len(values):
        raise ValueError(f"--sweep {text!r}: a value is given twice")
    variable = variable_name(key)
    return [(name, [(variable, value)]) for name, value in zip(sweep_names(values), values)]


def setting_value(settings, variable):
    """The value the last of `settings` ('HARMONIZE_ARRIVAL=v' or 'arrival=v') gives `variable`."""
    found = None
    for setting in settings:
        key, _, value = setting.partition("=")
        if variable_name(key.strip()) == variable:
            found = value
    return found
