"""pytest hooks for the whole suite (tests/, lessons/, solutions/).

The grading tests (the nbgrader round trips of tests/test_nbgrader.py, the hostile class, the shards) take the longest
(a sandbox per submission, each starting torch; some wait on deadlines): they go first. `./course test` runs three
workers with `--dist loadfile` (a file's tests, e.g. a notebook's cells, stay together on one worker), scheduled by
`unit_of` (`pytest_xdist_make_scheduler`): each exercise set's tests in tests/test_nbgrader.py are a unit of their own,
so that one worker grades a set (once: the class is graded by a module-scoped fixture) while the others grade others.
(xdist 3.8's `loadgroup` cannot do this under pytest 9: it rewrites `item._nodeid`, which pytest 9 no longer reads.)
Likewise each notebook's Run All in tests/test_browser.py is a unit of its own; these go first too, in collection order
(so before the grading ones): the workers run notebooks, each in the JupyterLab it started once, then grade.
"""
import ctypes
import os
import shutil
import signal
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

from autograde import sets

ROOT = Path(__file__).resolve().parent
GRADING_FILES = ("tests/test_nbgrader.py", "tests/test_hostile.py", "tests/test_grade_shards.py")


def exercise_set_of(nodeid: str) -> str | None:
    """The exercise set a test of tests/test_nbgrader.py is about: its parameter's id starts with the set's name
    (`[02_sharding]`, `[02_sharding/zero2_floor_shards]`); None for any other test."""
    path, _, rest = nodeid.partition("::")
    name = rest.partition("[")[2].split("/")[0].removesuffix("]")
    return name if path == "tests/test_nbgrader.py" and name in sets.names() else None


def unit_of(nodeid: str) -> str:
    """What one worker runs as a whole: the test's file, or within tests/test_nbgrader.py one exercise set's tests,
    within tests/test_browser.py one notebook's Run All (its parameter's id is the notebook's path)."""
    path, _, rest = nodeid.partition("::")
    if exercise_set := exercise_set_of(nodeid):
        return f"{path}[{exercise_set}]"
    notebook = rest.partition("[")[2].removesuffix("]")
    if path == "tests/test_browser.py" and notebook.endswith(".ipynb"):
        return f"{path}[{Path(notebook).stem}]"  # each worker starts JupyterLab once, and both take notebooks
    return path


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: `--dist loadfile` schedules by `unit_of`
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class UnitScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return UnitScheduling(config, log)


def pytest_collection_modifyitems(items):
    first = (*GRADING_FILES, "tests/test_browser.py")  # the longest units first, the rest in their order (stable sort)
    longest = _longest_classes()
    items.sort(key=lambda item: (item.nodeid.split("::")[0] not in first, _grading_order(item, longest)))


# The exercise sets whose class takes longest to grade (each set's `grading_seconds`, measured in CI: its
# autograde/sets/<set>/set.toml) go first, these many, longest first: the workers start on the longest, and the
# shorter ones, with the other long units, fill in after them in collection order.
LONGEST_CLASSES_FIRST = 4


def _longest_classes() -> list[str]:
    """The names of the LONGEST_CLASSES_FIRST sets whose class takes longest to grade, longest first."""
    longest = sorted(sets.exercise_sets(), key=lambda exercise_set: -(exercise_set.grading_seconds or 0))
    return [exercise_set.name for exercise_set in longest[:LONGEST_CLASSES_FIRST]]


def _grading_order(item, longest: list[str]) -> int:
    exercise_set = exercise_set_of(item.nodeid)
    return longest.index(exercise_set) if exercise_set in longest else len(longest)


class _SigAction(ctypes.Structure):  # Linux's struct sigaction: the handler comes first
    _fields_ = [("handler", ctypes.c_void_p), ("mask", ctypes.c_ulong * 16), ("flags", ctypes.c_int),
                ("restorer", ctypes.c_void_p)]


def _sigint_state() -> tuple:
    """(Python's SIGINT handler, the main thread's blocked signals, the process's C-level SIGINT handler): a C library
    that installs its own handler takes SIGINT away from Python while `signal.getsignal` still shows Python's."""
    action = _SigAction()
    if not sys.platform.startswith("linux") or ctypes.CDLL(None).sigaction(signal.SIGINT, None, ctypes.byref(action)):
        action.handler = None
    return signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, []), action.handler


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    item.sigint_before = _sigint_state()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """A test that changes how its pytest worker takes SIGINT (ignores or blocks it, or a C library replaces Python's
    handler) breaks every later Ctrl-C test of that worker, and every process the worker starts inherits it: such a
    test errors here, by name, and the worker's state is put back. (A worker that *started* with SIGINT ignored, e.g.
    under `nohup ... &`, is not an error: the Ctrl-C tests take SIGINT themselves, see tests/test_launch.py.)"""
    before, after = getattr(item, "sigint_before", None), _sigint_state()
    if before is not None and after != before:
        signal.signal(signal.SIGINT, before[0])  # (re)installs Python's C-level handler too
        signal.pthread_sigmask(signal.SIG_SETMASK, before[1])
        raise RuntimeError(f"{item.nodeid} changed how this process takes SIGINT: (Python's handler, blocked signals, "
                           f"C handler) were {before} before it, {after} after (put back)")


def browser_runs_notebooks() -> bool:
    """Whether tests/test_browser.py runs the lesson and solution notebooks (in JupyterLab, under Chromium)."""
    return bool(os.environ.get("DISTLAB_CHROMIUM") or shutil.which("chromium")) and find_spec("playwright") is not None


def pytest_ignore_collect(collection_path, config):
    """nbval runs lessons/ and solutions/ only where tests/test_browser.py cannot (no Chromium or Playwright): the
    browser's Run All checks the same (every cell runs, every assert holds), and more. A notebook named on the
    command line, or in a folder named there (`pytest lessons/05_pipeline.ipynb`), is always run by nbval."""
    if collection_path.suffix != ".ipynb" or not collection_path.is_relative_to(config.rootpath):
        return None
    named = {Path(arg.split("::")[0]).resolve() for arg in config.args} - {config.rootpath}
    if config.args_source == pytest.Config.ArgsSource.ARGS and named & {collection_path, *collection_path.parents}:
        return None
    if not browser_runs_notebooks():
        return None
    return collection_path.relative_to(config.rootpath).parts[0] in ("lessons", "solutions") or None


@pytest.fixture(scope="session")
def playwright_session():
    """Playwright's sync API for this pytest process, shared by tests/test_browser.py and tests/test_book_site.py: it
    runs an event loop in this thread, and a second `sync_playwright()` while the first is open raises ("Sync API
    inside the asyncio loop"). Skips without Playwright unless DISTLAB_REQUIRE_BROWSER=1 (.ci/run)."""
    if os.environ.get("DISTLAB_REQUIRE_BROWSER") == "1":
        import playwright.sync_api as sync_api  # required: an ImportError fails the test
    else:
        sync_api = pytest.importorskip("playwright.sync_api", reason="no Playwright: pip install playwright (.ci/run "
                                       "does); nbval runs the notebooks instead")
    with sync_api.sync_playwright() as playwright:
        yield playwright
