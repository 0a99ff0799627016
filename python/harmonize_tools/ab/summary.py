"""The summary of an output directory (summarize: every number the tables,
CSV files, summary.json and plots show) and the files written from it."""
import json
import shlex

from ..timeline import draw as timeline_draw
from . import data_files, plots, stats, tables
from .arrival import arrival_summary, side_arrival
from . import interleaved, sequential
from .library_stats import merge_reports
from .per_call import compare_collectives
from .files import OutputError, write_json, write_text
from .plan import SIDE_MODES, comparison_pair, side_definition
from .results import collect, side_points, side_reports, side_rows


def legacy_sides(sides):
    """Only the predefined A, B, C: the tables keep their A/B layout."""
    return set(sides) <= set(SIDE_MODES)


def stray_warnings(ok_runs):
    """A file in a run's directory that is not its attempt's was written by a
    job of an earlier attempt that ran on beside it (its report name)."""
    warnings = []
    for run in ok_runs:
        status = run["status"]
        if status.get("stray_files"):
            names = ", ".join(status["stray_files"])
            verb = "does" if len(status["stray_files"]) == 1 else "do"
            warnings.append(f"run {status['id']}: {names} {verb} not belong to its attempt "
                            f"({status.get('attempt')}): a job of an earlier attempt was still running "
                            f"during this run, which may have disturbed it; check the machine for leftover "
                            f"processes, then delete runs/{status['id']} and --resume to measure it again")
    return warnings


def summarize(plan, output, metric, t0=None):
    """Everything on disk -> the summary dict (pure apart from reading files)."""
    ok_runs, failed = collect(output, plan)
    sides = plan["sides"]
    points = stats.collect_points(side_rows(ok_runs), metric=f"{metric}_us")
    pair = comparison_pair(sides)
    library = {}
    collective_points = side_points(plan, ok_runs)
    arrivals = {}
    for side in sides:
        reports = side_reports(ok_runs, side)
        if reports:
            library[side] = merge_reports(reports)
        own_settings = plan["settings"].get("all", []) + plan["settings"].get(side, [])
        arrivals[side] = side_arrival(plan["modes"][side], reports, own_settings)
    arrival = arrival_summary(collective_points, sides, arrivals, t0)
    # Beyond A/B/C each side's latency is set against one reference: t0 when
    # there is one (what a delay costs), else the first side.
    reference = None if legacy_sides(sides) else (arrival["t0_side"] or sides[0])
    ok_counts = {side: sum(1 for run in ok_runs if run["status"]["side"] == side) for side in sides}
    interleaved_runs = interleaved.run_comparisons(side_reports(ok_runs, interleaved.SIDE))
    looks = plan.get("sequential_looks")
    return {
        "version": 1,
        "command": plan["command"],
        "command_text": " ".join(shlex.quote(a) for a in plan["command"]),
        "sides": sides,
        "modes": {side: plan["modes"][side] for side in sides},
        "configs": plan.get("configs", {}),
        "side_settings": {side: side_definition(plan, side)["settings"] for side in sides},
        "metric": metric,
        "comparison_pair": list(pair),
        "reference": reference,
        "ok_runs": ok_counts,
        "results": stats.aggregate_points(points, sides, pair, reference),
        "library": library,
        # Interleaved, the one side holds both: the library pairs them (below).
        "collectives": [] if sides == [interleaved.SIDE] else compare_collectives(collective_points, pair),
        "arrival": arrival,
        "failed_runs": [{k: v for k, v in f.items() if k in ("id", "side", "mode", "exit_code", "errors",
                                                             "log", "superseded")} for f in failed],
        "warnings": stray_warnings(ok_runs),
        "interleaved": interleaved_runs,
        "interleaved_across": interleaved.across_runs(interleaved_runs) if len(interleaved_runs) > 1 else [],
        # --interleave --until-decided: every run's blocks pooled, at the
        # sequential rule's level.
        "interleaved_pooled": sequential.pooled_verdicts(interleaved_runs, looks) if looks else None,
        "output_directory": str(output.resolve()),
    }


def draw_plots(summary, directory):
    """(written paths, note when there are none): the plots, and a timeline
    picture per side from its first run (runs/001-<side>/timeline.json)."""
    try:
        written = plots.make_plots(summary, directory)
        return written + timeline_draw.draw_runs(directory.parent / "runs", directory), None
    except plots.PlotsUnavailable as error:
        return [], str(error)
    except OSError as error:
        # matplotlib's savefig on a full disk names no file.
        raise OutputError(f"cannot write the plots in {directory}: "
                          f"{error.strerror or error}") from error


def write_outputs(summary, output, want_plots):
    text = tables.terminal_report(summary)
    outputs = {"table": output / "table.txt", "results_csv": output / "results.csv",
               "library_csv": output / "library.csv", "collectives_csv": output / "collectives.csv",
               "arrival_csv": output / "arrival.csv", "summary_json": output / "summary.json"}
    plot_note = None
    plot_paths = []
    if want_plots and summary["results"]:
        plot_paths, plot_note = draw_plots(summary, output / "plots")
    summary["outputs"] = {k: str(v) for k, v in outputs.items()}
    summary["outputs"]["plots"] = [str(p) for p in plot_paths]
    if plot_note:
        summary["outputs"]["plots_note"] = plot_note
    write_text(outputs["table"], text)
    write_text(outputs["results_csv"], data_files.results_csv(summary))
    write_text(outputs["library_csv"], data_files.library_csv(summary))
    write_text(outputs["collectives_csv"], data_files.collectives_csv(summary))
    write_text(outputs["arrival_csv"], data_files.arrival_csv(summary))
    write_json(outputs["summary_json"], json.loads(data_files.summary_json(summary)))
    return text, plot_paths, plot_note
