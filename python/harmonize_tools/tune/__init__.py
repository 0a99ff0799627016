"""harmonize-tune: collective algorithm selection from harmonized per-call
measurements (cli), the algorithms the MPI library offers (algorithms), the
choice (decide) and the library's decision files (rules)."""
