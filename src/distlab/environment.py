"""Every environment variable the course reads that is its own (`DISTLAB_*`): who reads it and what it changes.
One list, so that a reader finds them all in one place; `tests/test_project.py` fails on a `DISTLAB_*` name used in
the repository and missing here, and on a name listed here that nothing uses. Standard library only.

    python -m distlab.environment      # the table
"""
from __future__ import annotations

from typing import NamedTuple


class Variable(NamedTuple):
    read_by: str  # the file (or command) that reads it
    meaning: str  # what setting it changes


VARIABLES = {
    # distlab: the learner's library
    "DISTLAB_BACKEND": Variable("src/distlab/devices.py", '"gloo" or "nccl": overrides the backend `pick_backend` '
                                "chooses (e.g. gloo on a GPU node, to compare)"),
    "DISTLAB_FAIL_AT": Variable("src/distlab/faults.py", 'the failures a script injects, "rank:step[:kill|raise|stop]'
                                '[@attempt]" (lesson 3: `faults_from_env`)'),
    "DISTLAB_PROC_IO": Variable("src/distlab/comm.py", "another file than /proc/self/io for `count_bytes_written` "
                                "(a missing one: the comparison is skipped, as on macOS)"),
    # the grader (autograde/)
    "DISTLAB_GRADING_WORK": Variable("autograde/nbgrader_config.py", "nbgrader's work folder (gradebook, submitted/, "
                                     "autograded/, feedback/); default autograde/work"),
    "DISTLAB_SOURCE_DIR": Variable("autograde/nbgrader_config.py", "nbgrader's source folder; default solutions/"),
    "DISTLAB_RELEASE_DIR": Variable("autograde/nbgrader_config.py", "nbgrader's release folder; default exercises/"),
    "DISTLAB_EXCHANGE": Variable("autograde/nbgrader_config.py", "nbgrader's exchange (release and collect on one "
                                 "server); default autograde/work/exchange"),
    "DISTLAB_GRADING_SEED": Variable("autograde/seed.py, autograde/sets/_common.py", "replays one draw of the checks' "
                                     "inputs (grade.py records the seed it drew in grades.json)"),
    "DISTLAB_GRADING_SEED_FILE": Variable("autograde/sets/_common.py", "the file grade.py writes the class's seed to "
                                          "(set by grade.py, never seen by a sandbox)"),
    "DISTLAB_PYTHON": Variable("autograde/slurm/grade_array.sbatch", "the Python a SLURM job array grades with; default "
                               ".venv/bin/python"),
    # the course command and the tests
    "DISTLAB_VENV": Variable("course, .ci/run", "the environment folder `./course` uses; default .venv"),
    "DISTLAB_TEST_WORKERS": Variable("course", "pytest workers of `./course test`; default 3 (1: one process)"),
    "DISTLAB_GRADING_JOBS": Variable("tests/test_nbgrader.py, course", "groups of students a class grading test "
                                     "grades side by side; default 2 (`./course test` sets 1)"),
    "DISTLAB_REQUIRE_BROWSER": Variable("tests/_chromium.py", "1: a missing Chromium or Playwright fails the browser "
                                        "tests instead of skipping them (.ci/run)"),
    "DISTLAB_CHROMIUM": Variable("tests/_chromium.py", "another Chromium than the one on PATH"),
    "DISTLAB_TEST_SLACK": Variable("tests/_timing.py", "how much slower than expected a machine may be; default 3"),
    "DISTLAB_TEST_DEADLINE_S": Variable("tests/test_cluster.py", "the deadline every wait of a cluster test shares; "
                                        "default 180"),
    "DISTLAB_TEST_EVERY_SCRIPT_ON_TWO_NODES": Variable("tests/test_cluster.py", "1: run every lesson script on two "
                                                       "localhost nodes (~3 min; CI runs 01 and 03)"),
    "DISTLAB_CTRL_C_SEED": Variable("tests/test_launch.py", "replays one draw of the Ctrl-C soak's moments"),
    "DISTLAB_CTRL_C_SOAK": Variable("tests/test_launch.py", "interrupts in the Ctrl-C soak; default 8"),
    "DISTLAB_CTRL_C_COLD": Variable("tests/test_launch.py", "fresh processes in the cold Ctrl-C test; default 1"),
    "DISTLAB_SECRET_FOR_TEST": Variable("tests/test_sandbox.py", "a value the sandbox test sets to prove a sandbox "
                                        "cannot read the grader's environment"),
}

# DISTLAB_-prefixed names in the repository that are not environment variables
NOT_VARIABLES = {"DISTLAB_SCRIPT"}  # benchmarks/bench_01.py: the script text of the distlab launch it times


def table() -> str:
    width = max(map(len, VARIABLES))
    return "\n".join(f"{name:<{width}}  {v.read_by}: {v.meaning}" for name, v in VARIABLES.items())


if __name__ == "__main__":
    print(table())
