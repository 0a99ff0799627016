"""The Python side of harmonize: the tools behind scripts/harmonize-*.

    run      harmonize-run: launch an MPI program with libharmonize.so preloaded
    ab       harmonize-ab: A/B comparison runs of MPI benchmarks (a subpackage)
    lab      harmonize-lab: a cluster of network namespaces on one machine (a subpackage)
    scale    harmonize-scale: the library on simulated clusters (SimGrid/SMPI)
    common   what several of them need: launcher and MPI detection, durations,
             the delay an arrival pattern imposes

Each tool's main(argv=None, script_dir=None) returns its exit status; the
launchers in scripts/ (bin/ when installed) call it. docs/python.md
describes the layout.
"""
__version__ = "0.1.0"
