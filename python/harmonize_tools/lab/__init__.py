"""harmonize-lab: a small cluster of Linux network namespaces on one machine."""
