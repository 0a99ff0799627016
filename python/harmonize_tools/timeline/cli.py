"""harmonize-timeline: draw a few consecutive calls of a timeline.

usage: harmonize-timeline TRACE.json [-o OUT.png] [--calls A:B] [--comm NAME]

TRACE.json is what HARMONIZE_TRACE writes (docs/timeline.md). One lane per
rank, time on the global clock across: each barrier call from entry to exit
(a tick at the exit: black flag 1, red flag 0; the deadline dashed), each
collective call in between colored by operation. --calls A:B draws barrier
calls A to B-1 of the communicator (default: the first 4; MPI_COMM_WORLD, or
the first communicator with calls). Prints the exit skew of each drawn call.

exit status: 0 drawn, 1 the calls are not in the file, 2 usage or file error.
"""
import argparse
import sys
from pathlib import Path

from ..ab import plots
from . import draw, trace


def parse_calls(text):
    try:
        first, end = (int(part) for part in text.split(":"))
    except ValueError as error:
        raise ValueError(f"--calls {text!r}: expected A:B, two whole numbers") from error
    if first < 0 or end <= first:
        raise ValueError(f"--calls {text!r}: expected 0 <= A < B")
    return first, end - 1


def main(argv=None, script_dir=None):
    del script_dir
    parser = argparse.ArgumentParser(prog="harmonize-timeline", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("trace", type=Path)
    parser.add_argument("-o", "--output", type=Path, help="the PNG (default: TRACE with .png)")
    parser.add_argument("--calls", default="0:4", help="barrier calls A:B (A to B-1; default 0:4)")
    parser.add_argument("--comm", help="the communicator's name as the trace gives it")
    parser.add_argument("--title", help="the picture's title")
    argv = list(sys.argv[1:] if argv is None else argv)
    # "--calls -3:-1" is a value, not an option: argparse would say "expected one argument".
    for index, word in enumerate(argv[:-1]):
        if word == "--calls" and argv[index + 1].startswith("-"):
            argv[index:index + 2] = [f"--calls={argv[index + 1]}"]
            break
    args = parser.parse_args(argv)
    try:
        first, last = parse_calls(args.calls)
        data = trace.load(args.trace)
    except (ValueError, trace.TraceError) as error:
        print(f"harmonize-timeline: error: {error}", file=sys.stderr)
        return 2
    names = trace.communicators(data)
    comm = args.comm or ("MPI_COMM_WORLD" if "MPI_COMM_WORLD" in names else (names[0] if names else None))
    if comm is None or comm not in names:
        print(f"harmonize-timeline: error: {args.trace}: no calls of {comm or 'any communicator'} "
              f"(it has: {', '.join(names) or 'none'})", file=sys.stderr)
        return 2
    output = args.output or args.trace.with_suffix(".png")
    title = args.title or f"{args.trace.name}: {comm}, barrier calls {first} to {last}"
    try:
        skews = draw.draw(data, comm, first, last, title, output)
    except trace.TraceError as error:
        print(f"harmonize-timeline: error: {error}", file=sys.stderr)
        return 1
    except plots.PlotsUnavailable as error:
        print(f"harmonize-timeline: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"harmonize-timeline: error: cannot write {output}: {error.strerror or error}", file=sys.stderr)
        return 2
    per_rank = trace.calls(data, comm)
    missing = trace.missing_ranks(data, per_rank) if comm == "MPI_COMM_WORLD" else []
    if missing:
        print(f"harmonize-timeline: warning: rank(s) {', '.join(map(str, missing))} of the "
              f"{len(per_rank) + len(missing)} have no call in the file: the exit skews are over the others "
              "only", file=sys.stderr)
    elif len(per_rank) < 2:
        print("harmonize-timeline: warning: one rank's calls only: an exit skew needs two", file=sys.stderr)
    if trace.collectives_dropped_between(data, per_rank, first, last):
        print(f"harmonize-timeline: warning: the trace's window (HARMONIZE_TRACE_WINDOW "
              f"{(data.get('otherData') or {}).get('window', '?')}) dropped the collective calls between "
              "these barriers: the picture shows the barriers alone", file=sys.stderr)
    for call, skew in skews.items():
        print(f"call {call}: exit skew {skew:.3f} us")
    print(f"harmonize-timeline: {output}")
    return 0
