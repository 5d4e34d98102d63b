"""Schema files for loadgen datasets (shipped in the wheel as loadgen.schema)."""
