"""Shared fixtures: the slarm CLI (the reference of the value-equality tests) and the real
traces of the Parallel Workloads Archive.

Environment:
  SLARM_BIN               the CLI binary (default: target/release/slarm of the repository)
  SLARM_TRACES            folder of the PWA logs (default: ../shared/data/traces beside the
                          repository)
  SLARM_REQUIRE_TRACES=1  a missing trace fails instead of skipping
  SLARM_PY_STRICT=1       (CI) a missing CLI binary, trace, pandas or pyworkforce fails
                          instead of skipping
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
STRICT = os.environ.get("SLARM_PY_STRICT") == "1"
REQUIRE_TRACES = STRICT or os.environ.get("SLARM_REQUIRE_TRACES") == "1"


def missing(what: str, required: bool = STRICT) -> None:
    """Fails (strict mode) or skips with a message naming what is missing."""
    if required:
        pytest.fail(f"{what} is missing (required in this run)")
    pytest.skip(f"{what} is missing")


class Cli:
    """Runs the slarm binary and parses its --json answer."""

    def __init__(self, path: Path):
        self.path = path

    def json(self, *args: str, ok_codes=(0,)) -> dict:
        r = subprocess.run([str(self.path), "--json", *args], capture_output=True, text=True, timeout=600)
        assert r.returncode in ok_codes, f"slarm {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}"
        return json.loads(r.stdout)

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.path), *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def cli() -> Cli:
    path = Path(os.environ.get("SLARM_BIN") or REPO / "target" / "release" / "slarm")
    if not path.is_file():
        missing(f"the slarm binary ({path}; build it or set SLARM_BIN)")
    return Cli(path)


def trace_path(name: str) -> Path:
    folder = Path(os.environ.get("SLARM_TRACES") or REPO.parent / "shared" / "data" / "traces")
    path = folder / name
    if not path.is_file():
        missing(f"trace {path} (set SLARM_TRACES)", REQUIRE_TRACES)
    return path


@pytest.fixture(scope="session")
def kth_path() -> Path:
    return trace_path("KTH-SP2-1996-2.1-cln.swf.gz")


@pytest.fixture(scope="session")
def kth(kth_path):
    import slarm

    return slarm.sim.read_swf(kth_path)


def optional_module(name: str):
    try:
        return __import__(name)
    except ImportError:
        missing(f"the Python package {name}")
