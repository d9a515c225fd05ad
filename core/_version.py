"""The installed llrlab version (from the package metadata, so pyproject.toml is its one source)."""

from importlib import metadata

try:
    __version__ = metadata.version("llrlab")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"
