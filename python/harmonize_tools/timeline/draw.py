"""The picture: one lane per rank, time across; each barrier call a grey bar
from entry to exit with a tick at its exit (black: flag 1, red: flag 0) and
the deadline as a dashed line; each collective call a bar colored by
operation. A harmonized barrier's exits stand in one vertical line, the
native barrier's in a staircase."""
import json

from ..ab import plots
from . import trace

COLORS = ["tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
          "tab:cyan"]


def draw(data, comm, first, last, title, path):
    """Writes the PNG of barrier calls first..last of `comm`; returns the exit skews (us).
    Raises plots.PlotsUnavailable without matplotlib, trace.TraceError for calls not kept."""
    per_rank = trace.calls(data, comm)
    start, end = trace.window(per_rank, first, last)
    margin = 0.03 * (end - start)
    pyplot = plots.load_pyplot()
    ranks = sorted(per_rank)
    figure, axes = pyplot.subplots(figsize=(10, max(2.4, 1.2 + 0.45 * len(ranks))))
    colors = {}
    deadline_drawn = False
    for lane, rank in enumerate(ranks):
        for call in range(first, last + 1):
            event = per_rank[rank]["barrier"].get(call)
            if event is None:
                continue
            exit_at = event["ts"] + event["dur"]
            axes.barh(lane, event["dur"], left=event["ts"], height=0.5, color="0.85", edgecolor="0.6")
            flagged = event["args"].get("flag", 1) == 0
            axes.plot([exit_at, exit_at], [lane - 0.32, lane + 0.32], color="red" if flagged else "black",
                      linewidth=1.6)
            if "deadline_us" in event["args"] and lane == 0:
                axes.axvline(event["args"]["deadline_us"], color="0.4", linestyle="--", linewidth=0.8,
                             label=None if deadline_drawn else "deadline")
                deadline_drawn = True
        for event in per_rank[rank]["collective"]:
            if event["ts"] + event["dur"] < start - margin or event["ts"] > end + margin:
                continue
            first_of_its_kind = event["name"] not in colors
            color = colors.setdefault(event["name"], COLORS[len(colors) % len(COLORS)])
            axes.barh(lane, event["dur"], left=event["ts"], height=0.3, color=color,
                      label=event["name"] if first_of_its_kind else None)
    axes.set_yticks(range(len(ranks)), [f"rank {r}" for r in ranks])
    axes.invert_yaxis()
    axes.set_xlim(start - margin, end + margin)
    axes.set_xlabel("global clock (us from the trace's origin)")
    axes.set_title(title, fontsize=10)
    handles, labels = axes.get_legend_handles_labels()
    if handles:
        axes.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False)
    figure.tight_layout()
    save(figure, path)
    pyplot.close(figure)
    return trace.exit_skews(per_rank, first, last)


def save(figure, path):
    """The PNG written whole or not at all: drawn beside it, then renamed
    (a full disk left a 0-byte picture). Anything but a regular file (a
    device, a pipe) is written to as it is, never replaced."""
    if path.exists() and not path.is_file():
        figure.savefig(path, dpi=130, format="png")
        return
    partial = path.with_name(f".{path.name}.partial")
    try:
        figure.savefig(partial, dpi=130, format="png")
        partial.replace(path)
    except OSError:
        partial.unlink(missing_ok=True)
        raise


def draw_runs(runs_directory, directory, calls=4):
    """harmonize-ab's pictures: one per side, from the timeline of its first
    run (runs/001-<side>/timeline.json), `calls` barrier calls of
    MPI_COMM_WORLD from the middle of the benchmark's measured loop
    (trace.measured_calls; else its last calls). Returns the written paths;
    a side without a usable timeline is left out. Raises
    plots.PlotsUnavailable without matplotlib."""
    written = []
    for path in sorted(runs_directory.glob("001-*/timeline.json")):
        side = path.parent.name[len("001-"):]
        try:
            mode = json.loads((path.parent / "status.json").read_text()).get("mode", "")
        except (OSError, ValueError):
            mode = ""
        try:
            data = trace.load(path)
            per_rank = trace.calls(data, "MPI_COMM_WORLD")
            span = trace.measured_calls(per_rank, calls) or trace.last_calls(per_rank, calls)
            if span is None:
                continue
            directory.mkdir(parents=True, exist_ok=True)
            output = directory / f"timeline-{side}.png"
            draw(data, "MPI_COMM_WORLD", span[0], span[1],
                 f"side {side}{f' ({mode})' if mode else ''}: barrier calls {span[0]}-{span[1]} of run 1 "
                 "(MPI_COMM_WORLD)", output)
            written.append(output)
        except trace.TraceError:
            continue
    return written
