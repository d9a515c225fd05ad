"""``python -m llrlab.core.cli``: the numeric subcommands without the dashboard."""

from . import main

main()
