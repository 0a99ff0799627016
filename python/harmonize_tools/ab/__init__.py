"""harmonize-ab: A/B comparison runs of MPI benchmarks with libharmonize preloaded."""
