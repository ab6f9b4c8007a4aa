"""Shared fixtures of the Python tests (run by ctest: tests/CMakeLists.txt sets PYTHONPATH to the
build tree's package, COULOMB_EXE to the CLI and COULOMB_SOURCE_DIR)."""
import json
import os
import subprocess

import pytest

SOURCE_DIR = os.environ.get("COULOMB_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SCENES = os.path.join(SOURCE_DIR, "scenes")


@pytest.fixture
def scenes():
    return SCENES


@pytest.fixture
def coulomb_exe():
    exe = os.environ.get("COULOMB_EXE")
    if not exe:
        pytest.fail("COULOMB_EXE is not set (run through ctest)")
    return exe


def run_cli(exe, *args, check=True):
    """Runs the coulomb CLI; returns the CompletedProcess."""
    p = subprocess.run([exe, *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"coulomb {' '.join(args)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p


def read_run(out_dir):
    """final_state.json and the stats.jsonl lines of a `coulomb run` output folder."""
    with open(os.path.join(out_dir, "final_state.json")) as f:
        final = json.load(f)
    with open(os.path.join(out_dir, "stats.jsonl")) as f:
        stats = [json.loads(line) for line in f if line.strip()]
    return final, stats
