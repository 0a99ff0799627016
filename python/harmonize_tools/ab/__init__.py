"""harmonize-ab: A/B comparison runs of MPI benchmarks with libharmonize preloaded.

    cli          the command line; run_sides: harmonize-ab as a library (harmonize-tune)
    plan         what is asked (plan.json) and the output directory checked against it
    runner       the interleaved runs, one harmonize-run command each
    jobs         a run's benchmark job: started, stopped, found left running
    failures     why a run failed, in one line
    files        harmonize-ab's own files written and read (OutputError, DamagedFile)
    results      an output directory read back: runs, rows, reports, per-call points
    parsing      the benchmarks' output (OSU, IMB, harmonize-example)
    sides        --side and --sweep
    stats        each side's latency per size across runs
    library_stats, per_call, arrival
                 the library's reports: merged, per call compared, under late arrivals
    decide       --until-decided
    summary      the summary of an output directory and the files written from it
    tables, data_files, plots
                 table.txt; the CSV files and summary.json; the PNG plots
"""
