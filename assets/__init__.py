"""Demo data shipped with llrlab (see README.md in this folder)."""
