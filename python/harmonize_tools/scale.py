"""harmonize-scale: the real library on thousands of simulated ranks (SimGrid/SMPI).

Builds the SMPI variant of the library if needed (CC=smpicc CXX=smpicxx,
-DHARMONIZE_SMPI=ON), generates a cluster platform (N nodes x k cores, fat-tree
or flat, given latency and bandwidth), runs a program linked with the library
at a list of process counts and clock-sync schemes, with per-node test clocks
so that clock errors and exit skews are known exactly, and writes
results.csv, table.md, fit.txt and scale-*.png. docs/scaling.md explains it.
Each simulated rank gets its own copy of the program's data segment
(smpi/privatization:mmap): a program of your own is linked -Wl,-Bsymbolic.
The likely clock-error bound assumes the paths as symmetric as the generated
platform makes them (--path-asymmetry, HARMONIZE_PATH_ASYMMETRY=0.5%).

  scripts/harmonize-scale --procs 64,256,1024 --barriers 20 -o scale-out
"""
# This docstring is the --help text. The host's limits and the program are
# checked first (scale_checks); the results are written by scale_results.
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from .common import parse_duration, signal_group, tools_dir
from .scale_checks import (check_map_count, check_program_binding, check_shared_memory, map_count_limit,
                           open_files_needed, privatization, raise_open_files)
from .scale_results import metrics, us, write_outputs


# SimGrid settings every run uses, and why:
#   coll-selector:ompi      SMPI's "default" allgather posts P receives and
#                           waits for any of them, O(P^2) per rank: 40 s of
#                           wall time at 128 ranks. Open MPI's selection is
#                           also what most users run.
#   simulate-computation:no the library's own computing costs no simulated
#                           time: runs are deterministic, whatever the load of
#                           the machine running the simulation.
#   wtime:0                 a clock read costs no simulated time (25 ns made
#                           every read a simulated sleep, a fifth of a
#                           1024-rank run's wall time). The library's wait
#                           naps to its deadline instead of spinning
#                           (barrier_protocol.cpp, wait_until); a program
#                           that spins on its clock needs --cfg
#                           smpi/wtime:2.5e-8 (a later --cfg wins).
#   bcast:binomial_tree     SMPI names every new communicator with a bcast;
#                           the selected one (mvapich2_knomial_intra_node)
#                           first maps the nodes with a ring allgather, P^2
#                           messages for each communicator the size of the
#                           world: 58 of the 64 s of a 1024-rank run.
#   reduce:binomial         the barrier log's flush (every 512 calls) reduces
#                           32 KB to rank 0; the selected reduce (binomial in
#                           1 KB segments) took 49 s of wall time at 1024
#                           ranks; unsegmented, less than a second.
#   privatization:mmap      each rank's globals are its own copy of the
#                           program's data segment (22 KB), mapped in when the
#                           rank runs. SimGrid's default (dlopen) loads a whole
#                           copy of the program per rank: 4096 x 100 barriers
#                           took 67 s and 3.9 GB instead of 54 s and 0.93 GB,
#                           and 16 384 copies thrashed this machine's page
#                           cache before the first barrier.
#                           The program must bind its own MPI_* itself:
#                           -Wl,-Bsymbolic or -Bsymbolic-functions
#                           (check_program_binding reads it).
SIMGRID_CONFIG = ["smpi/coll-selector:ompi", "smpi/bcast:binomial_tree", "smpi/reduce:binomial",
                  "smpi/simulate-computation:no", "smpi/wtime:0", "smpi/privatization:mmap"]


# HARMONIZE_PATH_ASYMMETRY of the runs. The generated platform's paths take
# the same number of hops each way over links of one latency and bandwidth
# (the fat tree may route the two directions through different spines), and
# nothing but the simulation's own traffic loads them; what is left is a few
# ns (a first pong of 48 bytes against a ping of 8, clock reads in whole ns),
# which 0.5 % of half a round trip covers at the default --latency and
# --bandwidth (round trips of microseconds). Chosen from the runs of
# docs/clock-error.md: at 0 %, 1 664 of 1 024 000 exits were beyond the likely
# bound by a few ns (1 024 ranks x 1 000 barriers), at 0.5 % none; the
# library's default (10 %) is what held on real paths under load. On another
# platform, read the likely_violations column.
PATH_ASYMMETRY = "0.5%"


def seconds(text):
    """A SimGrid time ('1us', '1e-6', bare numbers in seconds) in seconds."""
    return parse_duration(text, bare="s", exponent=True)


def build(build_dir, source_dir, rebuild=False):
    """Configures and builds the SMPI variant in `build_dir` unless it is there."""
    example = build_dir / "bin" / "harmonize-example"
    if example.exists() and not rebuild:
        # Incremental: make is quick when nothing changed.
        subprocess.run(["nice", "cmake", "--build", str(build_dir), "-j", str(os.cpu_count() or 2)],
                       check=True, stdout=subprocess.DEVNULL)
        return
    for tool in ("smpicc", "smpicxx", "smpirun"):
        if shutil.which(tool) is None:
            sys.exit(f"harmonize-scale: {tool} not found; install SimGrid (Debian: apt-get install "
                     "libsimgrid-dev)")
    env = dict(os.environ, CC="smpicc", CXX="smpicxx")
    # Small code, no debug info: the program is copied once per simulated rank,
    # and each rank runs its own copy's code from a cold cache. Against -O2 at
    # 1024 ranks: text 0.95 MB instead of 1.4, memory 990 MB instead of 1255,
    # wall time -9 %.
    small = "-Os -DNDEBUG -ffunction-sections -fdata-sections"
    subprocess.run(["nice", "cmake", "-S", str(source_dir), "-B", str(build_dir), "-DHARMONIZE_SMPI=ON",
                    "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    f"-DCMAKE_CXX_FLAGS_RELWITHDEBINFO={small}", f"-DCMAKE_C_FLAGS_RELWITHDEBINFO={small}",
                    "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--gc-sections"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(["nice", "cmake", "--build", str(build_dir), "-j", str(os.cpu_count() or 2)],
                   check=True, env=env, stdout=subprocess.DEVNULL)


def fat_tree_parameters(nodes):
    """A two-level full-bisection fat tree: leaf switches of up to 16 nodes."""
    leaf = min(nodes, 16)
    if nodes % leaf:
        return None
    tops = nodes // leaf
    # levels; children per switch at each level; parents of each node/leaf;
    # links between each pair.
    return f"2;{leaf},{tops};1,{leaf};1,1"


def write_platform(path, nodes, cores, topology, latency, bandwidth):
    extra = ""
    if topology == "fat-tree":
        parameters = fat_tree_parameters(nodes)
        if parameters is not None and nodes > 1:
            extra = f' topology="FAT_TREE" topo_parameters="{parameters}"'
    # Ranks of one node talk over its loopback: shared memory, 10x faster
    # than the network.
    path.write_text(
        "<?xml version='1.0'?>\n"
        '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
        '<platform version="4.1">\n'
        f'  <cluster id="cluster" prefix="node-" suffix="" radical="0-{nodes - 1}" speed="1Gf" '
        f'core="{cores}" bw="{bandwidth}" lat="{latency}" loopback_bw="20GBps" '
        f'loopback_lat="{seconds(latency) / 10:.3g}s"{extra}/>\n'
        "</platform>\n")


def write_hostfile(path, nodes, cores):
    path.write_text("".join(f"node-{i}:{cores}\n" for i in range(nodes)))


def library_environment(scheme, report, args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARMONIZE_")}
    env.update({
        "HARMONIZE_MODE": args.mode,
        "HARMONIZE_SYNC": scheme,
        "HARMONIZE_REPORT": str(report),
        "HARMONIZE_QUIET": "1",
        # One known skew per simulated node: the truth fields are exact.
        "HARMONIZE_TEST_CLOCK_SCOPE": "host",
        "HARMONIZE_TEST_CLOCK_OFFSET": args.offset,
        "HARMONIZE_TEST_CLOCK_DRIFT": args.drift,
        "HARMONIZE_TEST_CLOCK_SEED": str(args.seed),
        "HARMONIZE_PATH_ASYMMETRY": args.path_asymmetry,
    })
    env.update(args.env)  # the user's, over the script's
    return env


def run_one(procs, scheme, args, program, workdir):
    # A P that is no multiple of the node size leaves the last node part full.
    nodes = max(1, -(-procs // args.ranks_per_node))
    cores = min(procs, args.ranks_per_node)
    tag = f"p{procs}-{scheme}"
    platform = workdir / f"platform-{nodes}x{cores}.xml"
    hostfile = workdir / f"hosts-{nodes}x{cores}"
    write_platform(platform, nodes, cores, args.topology, args.latency, args.bandwidth)
    write_hostfile(hostfile, nodes, cores)
    report = workdir / f"report-{tag}.json"
    report.unlink(missing_ok=True)
    timing = workdir / f"time-{tag}.txt"
    command = ["/usr/bin/time", "-f", "%e %M", "-o", str(timing), "smpirun"]
    command += [f"--cfg={c}" for c in SIMGRID_CONFIG + list(args.cfg)]
    command += ["-np", str(procs), "-platform", str(platform), "-hostfile", str(hostfile)] + program
    log = workdir / f"log-{tag}.txt"
    started = time.monotonic()
    with open(log, "w") as out:
        # smpirun is a script: the simulation runs in its child (smpimain),
        # which a timeout must stop too, so the run gets a process group.
        simulation = subprocess.Popen(command, env=library_environment(scheme, report, args),
                                      stdout=out, stderr=subprocess.STDOUT, cwd=workdir,
                                      start_new_session=True)
        status = None
        try:
            status = simulation.wait(timeout=args.timeout)
        except subprocess.TimeoutExpired:
            status = "timeout"
        finally:
            signal_group(simulation, signal.SIGKILL)
            simulation.wait()
    row = {"procs": procs, "scheme": scheme, "nodes": nodes, "ranks_per_node": cores,
           "status": status, "wall_s": round(time.monotonic() - started, 2)}
    if timing.exists() and timing.read_text().split():
        fields = timing.read_text().split()[-2:]
        row["wall_s"], row["peak_rss_mb"] = float(fields[0]), round(int(fields[1]) / 1024, 1)
    if status == 0 and not report.exists():
        # smpirun exits 0 after MPI_Abort too (SimGrid 3.32).
        row["status"] = status = "no report"
    if status != 0:
        print(f"harmonize-scale: {tag} failed ({status}); see {log}", file=sys.stderr)
        return row
    row.update(metrics(json.loads(report.read_text())))
    return row


def main(argv=None, script_dir=None):
    """harmonize-scale with `argv` (default: sys.argv[1:]); the sources it
    builds are the parent of `script_dir` (scripts/)."""
    source_dir = (Path(script_dir) if script_dir is not None else tools_dir(__file__)).parent
    parser = argparse.ArgumentParser(prog="harmonize-scale", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--procs", default="64,128,256,512,1024",
                        help="comma-separated process counts (default %(default)s)")
    parser.add_argument("--schemes", default="h2hca,hca3", help="HARMONIZE_SYNC values (default %(default)s)")
    parser.add_argument("--ranks-per-node", type=int, default=32, help="cores per simulated node (32)")
    parser.add_argument("--topology", choices=["fat-tree", "flat"], default="fat-tree")
    parser.add_argument("--latency", default="1us", help="link latency, SimGrid units (1us)")
    parser.add_argument("--bandwidth", default="12.5GBps", help="link bandwidth, SimGrid units (12.5GBps)")
    parser.add_argument("--barriers", type=int, default=1000, help="harmonized barriers per run (1000)")
    parser.add_argument("--offset", default="1ms", help="test clocks: offsets within +- this (1ms)")
    parser.add_argument("--drift", default="50ppm", help="test clocks: drifts within +- this (50ppm)")
    parser.add_argument("--seed", type=int, default=1, help="test clocks: seed (1)")
    parser.add_argument("--mode", choices=["harmonize", "observe"], default="harmonize")
    parser.add_argument("--path-asymmetry", default=PATH_ASYMMETRY,
                        help="HARMONIZE_PATH_ASYMMETRY of the runs: what the likely clock-error bound "
                             "assumes of the paths (%(default)s: the generated platform's paths are "
                             "symmetric in hops, latency and bandwidth, measured at the default "
                             "--latency and --bandwidth; elsewhere check the likely violations "
                             "column; the library's default is 10%%)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="a library variable (HARMONIZE_*) for every run, over the script's "
                             "own, e.g. HARMONIZE_TRACE=trace-%%j.json (repeatable)")
    parser.add_argument("--cfg", action="append", default=[],
                        help="extra SimGrid --cfg setting, e.g. smpi/allreduce:rdb (repeatable)")
    parser.add_argument("--build-dir", type=Path, default=source_dir / "build-smpi")
    parser.add_argument("--rebuild", action="store_true", help="configure and build again")
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per run (3600)")
    parser.add_argument("-o", "--out", type=Path, default=Path("scale-out"))
    parser.add_argument("program", nargs="*",
                        help="program and arguments (after --), built with smpicc and linked with "
                             "lib/libharmonize-smpi.a; default: harmonize-example -c barrier")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    settings = {}
    for setting in args.env:
        name, is_set, value = setting.partition("=")
        if not name.startswith("HARMONIZE_") or not is_set:
            parser.error(f"--env: '{setting}' is not NAME=VALUE of a library variable (HARMONIZE_*)")
        settings[name] = value
    args.env = settings
    try:
        seconds(args.latency)
    except ValueError as error:
        parser.error(f"--latency: {error}")
    # The library would refuse it in every run, which SMPI reports as no report.
    share = re.fullmatch(r"(\d+(?:\.\d+)?)%", args.path_asymmetry)
    if share is None or float(share.group(1)) > 100:
        parser.error(f"--path-asymmetry: '{args.path_asymmetry}' is not a percentage from 0% to 100% "
                     "(e.g. 0.5%)")

    process_counts = [int(p) for p in args.procs.split(",") if p]
    how = privatization(SIMGRID_CONFIG + args.cfg)
    largest = max(process_counts, default=0)  # what the host must hold grows with P
    problem = (check_map_count(largest, map_count_limit(), how)
               or raise_open_files(open_files_needed(largest, how)))
    if problem:
        parser.error(problem)
    build(args.build_dir.resolve(), source_dir, args.rebuild)
    program = args.program or [str(args.build_dir.resolve() / "bin" / "harmonize-example"), "-c", "barrier",
                               "-m", "8:8", "-x", "0", "-i", str(max(1, args.barriers // 2))]
    # The simulation runs in the output directory: a program named from here
    # must still be found there.
    found = program[0] if os.sep in program[0] else shutil.which(program[0])
    if found and Path(found).exists():
        program = [str(Path(found).resolve())] + program[1:]
    problem = (check_program_binding(program[0], how)
               or check_shared_memory(largest, how, program[0]))
    if problem:
        parser.error(problem)
    args.out.mkdir(parents=True, exist_ok=True)
    workdir = args.out.resolve()
    schemes = [s for s in args.schemes.split(",") if s]
    rows = []
    for procs in process_counts:
        for scheme in schemes:
            row = run_one(procs, scheme, args, program, workdir)
            print(f"harmonize-scale: P={procs} {scheme}: {row.get('wall_s')} s, "
                  f"{row.get('peak_rss_mb')} MB, sync {us(row.get('sync_s'))} us", file=sys.stderr, flush=True)
            rows.append(row)
            # A long sweep keeps what it has measured should it be stopped.
            with open(workdir / "rows.jsonl", "a") as partial:
                partial.write(json.dumps(row) + "\n")
    write_outputs(rows, args.out, schemes)
    return 0 if all(r["status"] == 0 for r in rows) else 1
