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
the largest communicator size and then message size not above its own. For
allgather, alltoall, gather and scatter the message size Open MPI compares is
the bytes of all processes (a process's block times the communicator size,
coll_tuned_decision_dynamic.c; measured on 4.1.4: allgather at 300 B a
process, 4 processes, took the rule at 1024 B), where harmonize-tune's
choices, like OSU's sizes, are a process's: the file is written, and read
back, in Open MPI's units (ALL_PROCESSES_BYTES).

MPICH 4.0 (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`): nested objects
"collective=allreduce" > "comm_type=intra" > "comm_size<=P" (the last
"comm_size=any") > "avg_msg_size<=B" (the last "avg_msg_size=any") >
"algorithm=MPIR_Allreduce_intra_<choice>" (nb: MPIR_<C>_allcomm_nb). MPICH
knows avg_msg_size (a process's bytes) for allreduce, bcast, reduce and
alltoall only, and aborts on it for any other collective ("avg_msg_size not
defined for coll_type 0", csel.c, 4.0.2, at the first MPI_Allgather): the
others' ranges are total_msg_size, the bytes of all processes as for Open
MPI (ALL_PROCESSES_BYTES), and reduce_scatter's is its whole buffer, which is
OSU's size (MPICH_SIZE_CONDITION). The file
replaces the library's whole selection tree: a collective missing from it
stops the program ("Assertion failed in file src/mpi/coll/mpir_coll.c ...:
cnt", MPICH 4.0.2, as soon as MPI_Init's own collectives run), so the file
is the library's built-in tree (mpich_builtin_tuning) with the tuned
collectives' intra-communicator subtrees replaced (merge_mpich_tuning).

MPICH calls the algorithm a file names without the checks that guard it
when a CVAR forces it: reduce_scatter_allgather on a user-defined operation
stops the program ("Assertion failed ... HANDLE_IS_BUILTIN(op)", 4.0.2), and
an unknown name ("algorithm=MPIR_Allreduce_intra_auto") stops MPI_Init. So,
with the built-in tree at hand, a choice keeps the conditions under which
the library's own tree uses that algorithm (commutative, built-in operation,
count not below the power of two, power-of-two communicator, hierarchy, ...)
and hands every other call back to the library's own subtree; a range where
the default ("auto") was kept is the library's own subtree (guarded_choice).
"""
import json
import re

from .algorithms import MPICH_DEFAULT

# ompi/mca/coll/base/coll_base_functions.h, enum COLLTYPE.
OMPI_COLLECTIVE_IDS = {"allgather": 0, "allgatherv": 1, "allreduce": 2, "alltoall": 3, "alltoallv": 4,
                       "alltoallw": 5, "barrier": 6, "bcast": 7, "exscan": 8, "gather": 9, "gatherv": 10,
                       "reduce": 11, "reduce_scatter": 12, "reduce_scatter_block": 13, "scan": 14,
                       "scatter": 15, "scatterv": 16}
OMPI_NAMES = {value: name for name, value in OMPI_COLLECTIVE_IDS.items()}
# Open MPI's rules of these compare the bytes of all processes.
ALL_PROCESSES_BYTES = frozenset({"allgather", "alltoall", "gather", "scatter"})


# MPICH's size condition per collective (csel.c's get_avg_msgsize and
# get_total_msgsize), total_msg_size where none is named.
MPICH_SIZE_CONDITION = {"allreduce": "avg_msg_size", "bcast": "avg_msg_size", "reduce": "avg_msg_size",
                        "alltoall": "avg_msg_size"}


def rule_bytes(collective, communicator, size):
    """A process's `size` in bytes as Open MPI's rule for `collective`
    counts it on `communicator` processes."""
    return size * communicator if collective in ALL_PROCESSES_BYTES else size


def mpich_rule_bytes(collective, communicator, size):
    """rule_bytes as MPICH counts them (MPICH_SIZE_CONDITION): avg_msg_size
    is a process's bytes, alltoall's included."""
    return size if collective in MPICH_SIZE_CONDITION else rule_bytes(collective, communicator, size)


def process_bytes(collective, communicator, size):
    """The smallest block of one process whose call Open MPI counts as at
    least `size` bytes (rule_bytes' inverse, rounded up)."""
    return -(-size // communicator) if collective in ALL_PROCESSES_BYTES else size


def thresholds(rules):
    """[(bytes, algorithm)] -> the rules where the choice changes, the first at 0."""
    kept = []
    for size, algorithm in sorted(rules):
        if not kept:
            kept.append((0, algorithm))
        elif algorithm != kept[-1][1]:
            kept.append((size, algorithm))
    return kept


def rule_at(choices, collective, processes, size):
    """The algorithm `choices` names for a call of `size` bytes on
    `processes` processes (as Open MPI reads its file: the largest
    communicator size, then message size, not above the call's), or None
    where they name none (the library decides)."""
    sizes = choices.get(collective) or {}
    fitting = [communicator for communicator in sizes if communicator <= processes]
    if not fitting:
        return None
    below = [algorithm for bytes_, algorithm in sorted(sizes[max(fitting)]) if bytes_ <= size]
    return below[-1] if below else None


def ompi_rules_text(choices, header="", parameters=None):
    """The rules file; `parameters` is {collective: (fan-in/out, segment
    size)} (algorithms.parse_ompi_rule_parameters; 0 0 without)."""
    lines = [f"# {line}" for line in header.splitlines()]
    lines += [f"{len(choices)}  # collectives"]
    for collective in sorted(choices, key=lambda c: OMPI_COLLECTIVE_IDS[c]):
        sizes = choices[collective]
        lines += [f"{OMPI_COLLECTIVE_IDS[collective]}  # {collective}",
                  f"{len(sizes)}  # communicator sizes"]
        for communicator in sorted(sizes):
            rules = thresholds(sizes[communicator])
            lines += [f"{communicator}  # communicator size", f"{len(rules)}  # message sizes"]
            fanout, segment = (parameters or {}).get(collective, (0, 0))
            lines += [f"{rule_bytes(collective, communicator, size)} {algorithm} {fanout} {segment}"
                      for size, algorithm in rules]
    return "\n".join(lines) + "\n"


def read_ompi_rules(text):
    """Every rule an Open MPI rules file holds, {collective: {communicator
    size: [(bytes, algorithm, fan-in/out, segment size)]}}, read strictly:
    ValueError saying what is wrong (a word that is not a number, a count
    the numbers after it do not fill, numbers left over, an unknown
    collective id, a size out of order). Open MPI 4.1 falls back to its
    default on any of these without a word."""
    numbers = []
    for number, line in enumerate(text.splitlines(), 1):
        for word in line.split("#")[0].split():
            if not re.fullmatch(r"-?\d+", word):
                raise ValueError(f"line {number}: {word[:40]!r} is not a number")
            numbers.append((int(word), number))
    if not numbers:
        raise ValueError("no rules: the file holds no numbers")
    at = 0

    def take(what, low=0):
        nonlocal at
        if at >= len(numbers):
            raise ValueError(f"ends early: {what} expected after the last number")
        value, line = numbers[at]
        at += 1
        if value < low:
            raise ValueError(f"line {line}: {what} {value} is below {low}")
        return value, line

    choices = {}
    for _ in range(take("the number of collectives", 1)[0]):
        ident, line = take("a collective id")
        if ident not in OMPI_NAMES:
            raise ValueError(f"line {line}: {ident} is no collective id Open MPI knows (0-{max(OMPI_NAMES)})")
        if OMPI_NAMES[ident] in choices:
            raise ValueError(f"line {line}: {OMPI_NAMES[ident]} a second time")
        sizes = choices.setdefault(OMPI_NAMES[ident], {})
        for _ in range(take("the number of communicator sizes", 1)[0]):
            communicator, line = take("a communicator size", 1)
            if sizes and communicator <= max(sizes):
                raise ValueError(f"line {line}: communicator size {communicator} not above the one before")
            rules = []
            for _ in range(take("the number of message sizes", 1)[0]):
                size, line = take("a message size")
                if rules and size <= rules[-1][0]:
                    raise ValueError(f"line {line}: message size {size} not above the one before")
                algorithm = take("an algorithm")[0]
                rules.append((size, str(algorithm), take("a fan-in/out")[0], take("a segment size")[0]))
            sizes[communicator] = rules
    if at != len(numbers):
        raise ValueError(f"{len(numbers) - at} numbers left over after the last rule (line {numbers[at][1]})")
    return choices


def parse_ompi_rules(text):
    """The choices an Open MPI rules file holds: {collective: {communicator
    size: [(bytes, algorithm)]}} (read_ompi_rules, less fan-out and segments),
    bytes a process's."""
    return {collective: {communicator: [(process_bytes(collective, communicator, size), algorithm)
                                        for size, algorithm, _, _ in rules]
                         for communicator, rules in sizes.items()}
            for collective, sizes in read_ompi_rules(text).items()}


def mpich_function(collective, choice):
    name = collective[:1].upper() + collective[1:]
    return f"MPIR_{name}_allcomm_nb" if choice == "nb" else f"MPIR_{name}_intra_{choice}"


# A size in the library's tree: its preference, which a choice replaces.
SIZE_CONDITION = re.compile(r"^(avg_msg_size|total_msg_size|comm_size)(<=|<|>=|>)\d+$"
                            r"|^(avg_msg_size|total_msg_size)=any$")


def is_leaf(node):
    return len(node) == 1 and next(iter(node)).startswith("algorithm=")


def guarded_choice(collective, choice, library_subtree):
    """The subtree naming `choice` for the calls the library's own subtree
    would give it to (its non-size conditions, each level's other branches
    handed back to the library's subtree), or that subtree itself for the
    default. An algorithm the library's tree never names is taken as it is."""
    if choice == MPICH_DEFAULT:
        return library_subtree
    target = f"algorithm={mpich_function(collective, choice)}"
    if library_subtree is None:
        return {target: {}}

    def keep(node):
        if is_leaf(node):
            return node if target in node else None
        branches = {key: keep(child) for key, child in node.items()}
        conditions = [key for key in node if not SIZE_CONDITION.match(key)]
        if any(not key.endswith("=any") for key in conditions) and \
                any(branches[key] is not None for key in conditions):
            # A size beside a condition (comm_size<8 before comm_size=pow2)
            # is the library's preference, which the choice replaces.
            return {key: library_subtree if branches[key] is None else branches[key] for key in conditions}
        found = [branch for branch in branches.values() if branch is not None]
        # Sizes only: the branch with the fewest conditions (recursive
        # doubling is a bare leaf up to 8 bytes, behind is_commutative=no at 0).
        return min(found, key=lambda branch: len(json.dumps(branch))) if found else None

    return keep(library_subtree) or {target: {}}


def mpich_tuning(choices, builtin=None):
    """The tuned "collective=C" entries; with the library's `builtin` tree,
    each choice guarded as guarded_choice says (without it, the bare names:
    the default cannot be written then)."""
    tree = {}
    for collective in sorted(choices):
        sizes = choices[collective]
        library_subtree = library_intra_subtree(builtin, collective)
        if library_subtree is None and any(a == MPICH_DEFAULT for r in sizes.values() for _, a in r):
            raise ValueError(f"{collective}: the default can only be written with the library's own tree")
        by_size = {}
        ordered = sorted(sizes)
        for index, communicator in enumerate(ordered):
            rules = thresholds(sizes[communicator])
            ranges = {}
            condition = MPICH_SIZE_CONDITION.get(collective, "total_msg_size")
            for position, (_, algorithm) in enumerate(rules):
                # The rule at rules[i] holds up to the next threshold (exclusive).
                key = (f"{condition}=any" if position == len(rules) - 1
                       else f"{condition}<={mpich_rule_bytes(collective, communicator, rules[position + 1][0]) - 1}")
                ranges[key] = guarded_choice(collective, algorithm, library_subtree)
            by_size["comm_size=any" if index == len(ordered) - 1 else f"comm_size<={communicator}"] = ranges
        tree[f"collective={collective}"] = {"comm_type=intra": by_size}
    return tree


def library_intra_subtree(builtin, collective):
    entry = (builtin or {}).get(f"collective={collective}")
    if not isinstance(entry, dict):
        return None
    return entry.get("comm_type=intra", entry if not any(k.startswith("comm_type=") for k in entry) else None)


def mpich_tuning_text(choices, builtin=None):
    return json.dumps(mpich_tuning(choices, builtin), indent=2) + "\n"


# What a benchmark's call is (OSU, IMB: MPI_SUM on a built-in type, separate
# buffers, a flat communicator of `comm_size`), for reading a guarded choice.
BENCHMARK_CALL = {"is_op_built_in": "yes", "is_commutative": "yes", "is_sendbuf_inplace": "no",
                  "is_block_regular": "yes", "is_node_consecutive": "yes", "comm_hierarchy": "flat"}


def holds(condition, comm_size):
    key, _, value = condition.partition("=")
    if value == "any":
        return True
    if condition == "count<pow2":
        return False
    if condition == "comm_size=pow2":
        return comm_size & (comm_size - 1) == 0
    if key in BENCHMARK_CALL:
        return BENCHMARK_CALL[key] == value
    return False


def selected(node, comm_size):
    """The function a benchmark's call on `comm_size` processes gets from a
    range's subtree; MPICH_DEFAULT where it reaches the library's own sizes."""
    while not is_leaf(node):
        if all(SIZE_CONDITION.match(key) for key in node):
            return MPICH_DEFAULT
        node = next((child for key, child in node.items() if holds(key, comm_size)), None)
        if node is None:
            return MPICH_DEFAULT
    return next(iter(node)).split("=", 1)[1]


def parse_mpich_tuning(text, only=None, comm_size=4):
    """{collective: [(comm bound, [(bytes bound, function)])]} from the JSON
    (of the collectives in `only`, default all), bounds None for 'any', the
    function the one a benchmark's call on `comm_size` processes gets
    (MPICH_DEFAULT where the library's own tree decides), bytes bounds a
    process's on `comm_size` processes."""
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
                if limit is not None:  # the largest block of a process whose call is within it
                    limit //= mpich_rule_bytes(collective, comm_size, 1)
                rules.append((limit, selected(leaf, comm_size)))
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
