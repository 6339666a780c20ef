"""distlab.launching.process_tree.kill_tree: a command and everything it started end together, a child in a session
of its own (as torchrun starts its ranks) included.

    pytest tests/test_process_tree.py
"""
import subprocess
import sys
import textwrap
import time

import psutil

from distlab.launching.process_tree import kill_tree

PARENT = textwrap.dedent("""
    import subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
    print(child.pid, flush=True)
    {after}
""")


def start(after: str) -> tuple[subprocess.Popen, int]:
    """A parent in a session of its own, whose child has a session of its own too; (parent, the child's pid)."""
    proc = subprocess.Popen([sys.executable, "-c", PARENT.format(after=after)], stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    return proc, int(proc.stdout.readline())


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_a_child_in_a_session_of_its_own_is_killed_with_its_parent():
    proc, child = start(after="time.sleep(600)")
    assert not gone(child)
    kill_tree(proc)
    assert proc.returncode is not None and gone(child)


def test_with_a_grace_period_sigterm_comes_first_and_a_parent_that_ignores_it_is_killed():
    proc, child = start(after="import signal; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('ready', "
                              "flush=True); time.sleep(600)")
    assert proc.stdout.readline().strip() == "ready"
    started = time.monotonic()
    kill_tree(proc, grace_s=0.5)
    assert time.monotonic() - started >= 0.5  # it waited for the SIGTERM to work, then killed
    assert proc.returncode == -9 and gone(child)
