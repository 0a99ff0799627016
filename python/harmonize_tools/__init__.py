"""The Python side of harmonize: the tools behind scripts/harmonize-*.

    run       harmonize-run: launch an MPI program with libharmonize.so preloaded
    ab        harmonize-ab: A/B comparison runs of MPI benchmarks (a subpackage)
    lab       harmonize-lab: a cluster of network namespaces on one machine (a subpackage)
    scale     harmonize-scale: the library on simulated clusters (SimGrid/SMPI), with
              scale_checks (what the host must hold) and scale_results (its outputs)
    tune      harmonize-tune: collective algorithm selection (a subpackage)
    timeline  harmonize-timeline: a HARMONIZE_TRACE timeline drawn (a subpackage)
    common    what several of them need: launcher and MPI detection, durations,
              the delay an arrival pattern imposes, progress lines, file names
    elf, frontier
              ELF images read; harmonize-bench-barrier's table read

Each tool's main(argv=None, script_dir=None) returns its exit status; the
launcher scripts/harmonize-run (bin/ when installed), and the links to it
named after the other tools, call it. docs/python.md describes the layout.
"""
__version__ = "0.1.0"
