"""autograde/limits.py: one home for a student's sandbox limits, read the same by grade.py and nbgrader's step.

    pytest tests/test_limits.py
"""
import subprocess
import sys

import pytest

from autograde.grade import make_parser
from autograde.limits import DEFAULT, SandboxLimits


def parsed(*options):
    return SandboxLimits.from_args(make_parser().parse_args(["01_data_parallelism", "submissions", *options]))


def test_grade_s_options_default_to_the_limits_defaults():
    assert parsed() == DEFAULT


def test_each_option_sets_its_limit_in_the_limit_s_unit():
    limits = parsed("--unsafe-no-sandbox", "--budget", "90", "--cell-timeout", "20", "--call-timeout", "30",
                    "--max-restarts", "0", "--memory-gib", "0.5", "--tasks", "64", "--cpus", "1.5")
    assert limits == SandboxLimits(sandbox=False, budget_s=90.0, cell_timeout_s=20.0, call_timeout_s=30.0,
                                   max_restarts=0, memory_bytes=2**29, tasks=64, cpus=1.5)


@pytest.mark.parametrize("options", [("--budget", "0"), ("--call-timeout", "-1"), ("--max-restarts", "-1"),
                                     ("--cpus", "-0.5"), ("--tasks", "0"), ("--memory-gib", "0")])
def test_a_limit_out_of_range_is_refused_naming_the_option(options):
    with pytest.raises(ValueError, match=options[0]):
        parsed(*options)


def test_nbgrader_s_step_gets_exactly_the_limits_grade_py_passes():
    """The options grade.py hands to `nbgrader autograde` set every trait of SandboxedExecute, to the same values."""
    from traitlets.config.loader import KVArgParseConfigLoader  # how nbgrader's command line reads them
    from autograde.sandboxed_execute import SandboxedExecute
    limits = parsed("--unsafe-no-sandbox", "--budget", "90", "--memory-gib", "0.5", "--tasks", "64", "--cpus", "1.5")
    config = KVArgParseConfigLoader(limits.nbgrader_options(), classes=[SandboxedExecute]).load_config()
    step = SandboxedExecute(config=config)
    assert {name: getattr(step, name) for name in limits.as_dict()} == limits.as_dict()
    assert set(SandboxedExecute.class_traits(config=True)) >= set(DEFAULT.as_dict())
    defaults = {name: SandboxedExecute.class_traits()[name].default_value for name in DEFAULT.as_dict()}
    assert defaults == DEFAULT.as_dict()


@pytest.mark.parametrize("module", ["autograde.limits", "autograde.protocol"])
def test_the_limits_and_the_protocol_import_neither_torch_nor_traitlets(module):
    """Standard library only: nbgrader's other commands read the limits, the worker's first import is the protocol."""
    code = f"import sys, {module}; print(sorted({{'torch', 'traitlets'}} & set(sys.modules)))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"
