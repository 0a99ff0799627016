"""Reading a HARMONIZE_TRACE file (docs/timeline.md): per rank, the barrier
and collective calls of one communicator, on the global clock in
microseconds from the file's origin. Pure."""
import json


class TraceError(Exception):
    """The file is not a harmonize timeline; the message says why."""


def load(path):
    try:
        data = json.loads(path.read_text())
    except OSError as error:
        raise TraceError(f"{path}: {error.strerror or error}") from error
    except json.JSONDecodeError as error:
        raise TraceError(f"{path}: not JSON ({error})") from error
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list) \
            or (data.get("otherData") or {}).get("producer") != "harmonize":
        raise TraceError(f"{path}: not a harmonize timeline (HARMONIZE_TRACE writes one)")
    return data


def communicators(data):
    """The communicators that have barrier calls, in order of appearance."""
    seen = []
    for event in data["traceEvents"]:
        if event.get("ph") == "X" and event.get("cat") in ("barrier", "collective"):
            name = event["args"]["comm"]
            if name not in seen:
                seen.append(name)
    return seen


def calls(data, comm):
    """{rank: {"barrier": {call: event}, "collective": [events]}} of `comm`."""
    found = {}
    for event in data["traceEvents"]:
        if event.get("ph") != "X" or event.get("cat") not in ("barrier", "collective"):
            continue
        if event["args"].get("comm") != comm:
            continue
        rank = found.setdefault(event["tid"], {"barrier": {}, "collective": []})
        if event["cat"] == "barrier":
            rank["barrier"][event["args"]["call"]] = event
        else:
            rank["collective"].append(event)
    return found


def window(per_rank, first, last):
    """The span [start, end] (us) from barrier call `first`'s earliest entry
    to barrier call `last`'s latest exit, over the ranks that kept both."""
    starts = [r["barrier"][first]["ts"] for r in per_rank.values() if first in r["barrier"]]
    ends = [r["barrier"][last]["ts"] + r["barrier"][last]["dur"] for r in per_rank.values()
            if last in r["barrier"]]
    if not starts or not ends:
        raise TraceError(f"barrier calls {first} to {last} are not in the timeline "
                         "(HARMONIZE_TRACE_WINDOW keeps the first and last calls)")
    return min(starts), max(ends)


def exit_skews(per_rank, first, last):
    """{call: max exit - min exit (us)} of the barrier calls first..last every rank kept."""
    skews = {}
    for call in range(first, last + 1):
        exits = [r["barrier"][call]["ts"] + r["barrier"][call]["dur"] for r in per_rank.values()
                 if call in r["barrier"]]
        if len(exits) == len(per_rank) and exits:
            skews[call] = max(exits) - min(exits)
    return skews


def last_calls(per_rank, count):
    """(first, last) of the last `count` consecutive barrier calls every rank
    kept, or None."""
    kept = set.intersection(*(set(r["barrier"]) for r in per_rank.values())) if per_rank else set()
    for last in sorted(kept, reverse=True):
        if all(call in kept for call in range(last - count + 1, last + 1)):
            return last - count + 1, last
    return None
