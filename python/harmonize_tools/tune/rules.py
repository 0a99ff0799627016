"""The MPI library's own decision files, from harmonize-tune's choices, and
back (pure).

`choices` is {collective: {communicator size: [(bytes, algorithm)]}}, bytes
ascending, algorithm the library's own value ("0".."N" for Open MPI, where 0
leaves the call to the library's fixed decision; a CVAR choice for MPICH).

Open MPI 4.1 (`coll_tuned_use_dynamic_rules 1`,
`coll_tuned_dynamic_rules_filename FILE`): numbers separated by white space,
'#' starts a comment: the number of collectives; per collective its id
(coll_base_functions.h's COLLTYPE), the number of communicator sizes; per
size the size and the number of message rules; per rule "bytes algorithm
fan-in/out segment-size", the first at 0 bytes. A call takes the rule with
the largest communicator size and then message size not above its own.

MPICH 4.0 (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`): nested objects
"collective=allreduce" > "comm_type=intra" > "comm_size<=P" (the last
"comm_size=any") > "avg_msg_size<=B" (the last "avg_msg_size=any") >
"algorithm=MPIR_Allreduce_intra_<choice>" (nb: MPIR_<C>_allcomm_nb). The file
replaces the library's whole selection tree: a collective missing from it
stops the program ("Assertion failed in file src/mpi/coll/mpir_coll.c ...:
cnt", MPICH 4.0.2, as soon as MPI_Init's own collectives run), so the file
is the library's built-in tree (mpich_builtin_tuning) with the tuned
collectives' intra-communicator subtrees replaced (merge_mpich_tuning).
"""
import json
import re

# ompi/mca/coll/base/coll_base_functions.h, enum COLLTYPE.
OMPI_COLLECTIVE_IDS = {"allgather": 0, "allgatherv": 1, "allreduce": 2, "alltoall": 3, "alltoallv": 4,
                       "alltoallw": 5, "barrier": 6, "bcast": 7, "exscan": 8, "gather": 9, "gatherv": 10,
                       "reduce": 11, "reduce_scatter": 12, "reduce_scatter_block": 13, "scan": 14,
                       "scatter": 15, "scatterv": 16}
OMPI_NAMES = {value: name for name, value in OMPI_COLLECTIVE_IDS.items()}


def thresholds(rules):
    """[(bytes, algorithm)] -> the rules where the choice changes, the first at 0."""
    kept = []
    for size, algorithm in sorted(rules):
        if not kept:
            kept.append((0, algorithm))
        elif algorithm != kept[-1][1]:
            kept.append((size, algorithm))
    return kept


def ompi_rules_text(choices, header=""):
    lines = [f"# {line}" for line in header.splitlines()]
    lines += [f"{len(choices)}  # collectives"]
    for collective in sorted(choices, key=lambda c: OMPI_COLLECTIVE_IDS[c]):
        sizes = choices[collective]
        lines += [f"{OMPI_COLLECTIVE_IDS[collective]}  # {collective}",
                  f"{len(sizes)}  # communicator sizes"]
        for communicator in sorted(sizes):
            rules = thresholds(sizes[communicator])
            lines += [f"{communicator}  # communicator size", f"{len(rules)}  # message sizes"]
            lines += [f"{size} {algorithm} 0 0" for size, algorithm in rules]
    return "\n".join(lines) + "\n"


def parse_ompi_rules(text):
    """The choices an Open MPI rules file holds (the reader's view: numbers, '#' comments)."""
    numbers = [int(n) for n in re.findall(r"-?\d+", "\n".join(line.split("#")[0] for line in text.splitlines()))]
    at = 0

    def take():
        nonlocal at
        at += 1
        return numbers[at - 1]

    choices = {}
    for _ in range(take()):
        collective = OMPI_NAMES[take()]
        sizes = choices.setdefault(collective, {})
        for _ in range(take()):
            communicator = take()
            rules = []
            for _ in range(take()):
                size, algorithm, _, _ = take(), take(), take(), take()
                rules.append((size, str(algorithm)))
            sizes[communicator] = rules
    if at != len(numbers):
        raise ValueError(f"{len(numbers) - at} numbers left over")
    return choices


def mpich_function(collective, choice):
    name = collective[:1].upper() + collective[1:]
    return f"MPIR_{name}_allcomm_nb" if choice == "nb" else f"MPIR_{name}_intra_{choice}"


def mpich_tuning(choices):
    tree = {}
    for collective in sorted(choices):
        sizes = choices[collective]
        by_size = {}
        ordered = sorted(sizes)
        for index, communicator in enumerate(ordered):
            rules = thresholds(sizes[communicator])
            ranges = {}
            for position, (_, algorithm) in enumerate(rules):
                # The rule at rules[i] holds up to the next threshold (exclusive).
                key = ("avg_msg_size=any" if position == len(rules) - 1
                       else f"avg_msg_size<={rules[position + 1][0] - 1}")
                ranges[key] = {f"algorithm={mpich_function(collective, algorithm)}": {}}
            by_size["comm_size=any" if index == len(ordered) - 1 else f"comm_size<={communicator}"] = ranges
        tree[f"collective={collective}"] = {"comm_type=intra": by_size}
    return tree


def mpich_tuning_text(choices):
    return json.dumps(mpich_tuning(choices), indent=2) + "\n"


def parse_mpich_tuning(text, only=None):
    """{collective: [(comm bound, [(bytes bound, function)])]} from the JSON
    (of the collectives in `only`, default all), bounds None for 'any'."""
    parsed = {}
    for collective_key, by_type in json.loads(text).items():
        collective = collective_key.split("=", 1)[1]
        if only is not None and collective not in only:
            continue
        entries = []
        for size_key, ranges in by_type["comm_type=intra"].items():
            bound = None if size_key.endswith("=any") else int(size_key.split("<=")[1])
            rules = []
            for range_key, leaf in ranges.items():
                limit = None if range_key.endswith("=any") else int(range_key.split("<=")[1])
                rules.append((limit, next(iter(leaf)).split("=", 1)[1]))
            entries.append((bound, rules))
        parsed[collective] = entries
    return parsed


def merge_mpich_tuning(builtin, tuned):
    """`builtin` (the library's own tree) with each collective of `tuned`
    (mpich_tuning's) replacing its "comm_type=intra" subtree; the rest kept."""
    merged = json.loads(json.dumps(builtin))
    for collective, by_type in tuned.items():
        entry = merged.get(collective)
        if not isinstance(entry, dict) or not any(key.startswith("comm_type=") for key in entry):
            merged[collective] = by_type  # no per-type split in the library's own: ours is the whole
        else:
            entry["comm_type=intra"] = by_type["comm_type=intra"]
    return merged


def embedded_json_trees(data):
    """The JSON objects a shared object holds as string constants beginning
    with '{"collective=' (MPICH embeds its selection trees so)."""
    trees = []
    start = data.find(b'{"collective=')
    while start >= 0:
        end = data.find(b"\x00", start)
        try:
            trees.append(json.loads(data[start:end].decode()))
        except (UnicodeDecodeError, ValueError):
            pass
        start = data.find(b'{"collective=', end)
    return trees


def mpich_builtin_tuning(library_bytes):
    """The MPIR-level selection tree built into libmpich (the one whose leaves
    are "algorithm=MPIR_..."), which MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE
    replaces; None when there is none."""
    for tree in embedded_json_trees(library_bytes):
        if '"algorithm=MPIR_' in json.dumps(tree):
            return tree
    return None
