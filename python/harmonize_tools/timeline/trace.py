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
    except UnicodeDecodeError as error:
        raise TraceError(f"{path}: not a text file (byte {error.start} is not UTF-8)") from error
    except json.JSONDecodeError as error:
        raise TraceError(f"{path}: not JSON ({error})") from error
    if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list) \
            or (data.get("otherData") or {}).get("producer") != "harmonize":
        raise TraceError(f"{path}: not a harmonize timeline (HARMONIZE_TRACE writes one)")
    for index, event in enumerate(data["traceEvents"]):
        if call_event(event) and not (isinstance(event.get("args"), dict) and "comm" in event["args"]
                                      and isinstance(event.get("ts"), (int, float))
                                      and isinstance(event.get("dur"), (int, float)) and "tid" in event):
            raise TraceError(f"{path}: event {index} ({event.get('name', '?')}) lacks its comm, tid, ts or "
                             "dur: not a timeline HARMONIZE_TRACE wrote, or one edited since")
    return data


def call_event(event):
    return isinstance(event, dict) and event.get("ph") == "X" and event.get("cat") in ("barrier", "collective")


def collectives_dropped_between(data, per_rank, first, last):
    """Whether the trace's window dropped the collective calls between the
    drawn barriers: the file says events were dropped, the communicator has
    collective calls, and none lies in the drawn span."""
    if not (data.get("otherData") or {}).get("dropped_events"):
        return False
    start, end = window(per_rank, first, last)
    collectives = [e for r in per_rank.values() for e in r["collective"]]
    return bool(collectives) and not any(start <= e["ts"] <= end for e in collectives)


def missing_ranks(data, per_rank):
    """The world ranks the file says it has (otherData.ranks) that kept no
    event of the drawn communicator; only told for MPI_COMM_WORLD."""
    ranks = (data.get("otherData") or {}).get("ranks")
    if not isinstance(ranks, int):
        return []
    return [rank for rank in range(ranks) if rank not in per_rank]


def communicators(data):
    """The communicators that have barrier calls, in order of appearance."""
    seen = []
    for event in data["traceEvents"]:
        if call_event(event):
            name = event["args"]["comm"]
            if name not in seen:
                seen.append(name)
    return seen


def calls(data, comm):
    """{rank: {"barrier": {call: event}, "collective": [events]}} of `comm`.
    A trace written before issue 46 holds mode observe's native barrier a
    second time, as a collective named MPI_Barrier: left out here, once."""
    found = {}
    for event in data["traceEvents"]:
        if not call_event(event):
            continue
        if event["args"].get("comm") != comm:
            continue
        rank = found.setdefault(event["tid"], {"barrier": {}, "collective": []})
        if event["cat"] == "barrier":
            rank["barrier"][event["args"]["call"]] = event
        elif event["name"] != "MPI_Barrier":
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


def measured_calls(per_rank, count):
    """(first, last) of `count` consecutive barrier calls every rank kept
    from the middle of the benchmark's longest measured loop: barriers each
    followed, before the next one, by a collective of one operation and
    size (on the lowest rank). A benchmark's last barriers end its run (OSU:
    a few of 2-10 ms, no collective between), where neither the native
    barrier's staircase nor an arrival pattern shows; None when no loop of
    `count` calls was kept."""
    if not per_rank:
        return None
    kept = sorted(set.intersection(*(set(r["barrier"]) for r in per_rank.values())))
    lowest = per_rank[min(per_rank)]
    starts = sorted((e["ts"], e["name"], e["args"].get("bytes")) for e in lowest["collective"])

    def key_after(call):
        begin = lowest["barrier"][call]["ts"] + lowest["barrier"][call]["dur"]
        following = lowest["barrier"].get(call + 1)
        end = following["ts"] if following else float("inf")
        found = next((s for s in starts if begin <= s[0] < end), None)
        return found[1:] if found else None

    best, run = None, []
    for call in kept:
        key = key_after(call)
        if run and (key is None or key != run[-1][1] or call != run[-1][0] + 1):
            best = max(best or run, run, key=len)
            run = []
        if key is not None:
            run.append((call, key))
    if run:
        best = max(best or run, run, key=len)
    if not best or len(best) < count:
        return None
    middle = best[(len(best) - count) // 2][0]
    return middle, middle + count - 1


def last_calls(per_rank, count):
    """(first, last) of the last `count` consecutive barrier calls every rank
    kept, or None."""
    kept = set.intersection(*(set(r["barrier"]) for r in per_rank.values())) if per_rank else set()
    for last in sorted(kept, reverse=True):
        if all(call in kept for call in range(last - count + 1, last + 1)):
            return last - count + 1, last
    return None
