"""harmonize-tune: collective algorithm selection from harmonized per-call
measurements (cli), the benchmark command per collective (benchmark), the
algorithms the MPI library offers (algorithms), their runs through
harmonize-ab (measure), the choice (decide), what is shown and written of it
(tables, heatmap) and the library's decision files (rules, rule_files)."""
