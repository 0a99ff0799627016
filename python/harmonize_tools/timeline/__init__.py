"""harmonize-timeline: a few consecutive calls of a HARMONIZE_TRACE timeline, drawn."""
