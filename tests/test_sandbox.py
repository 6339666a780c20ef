"""The grader's sandbox (autograde/sandbox.py) on its own: what a student's code can see, reach and leave behind.

    pytest tests/test_sandbox.py

Each test starts one bubblewrap sandbox (a few seconds: Python and torch start inside it).
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
import zlib
from pathlib import Path

import psutil
import pytest
import torch

from _timing import sooner_than
from autograde.cgroup import StudentGroup
from autograde.sandbox import ERROR_CAP, OUTPUT_CAP, SandboxError, StudentError, Submission, sandbox_problem

REPO = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")
IMPORTS = "import torch\nimport torch.distributed as dist\nimport distlab"


def test_call_brings_back_plain_data_and_student_errors():
    cells = [IMPORTS, "def double(x):\n    return {'twice': 2 * x, 'n': len(x)}",
             "def refuse(n):\n    raise ValueError(f'no {n}')"]
    with Submission(cells) as student:
        result = student.call("double", torch.arange(3))
        assert torch.equal(result["twice"], torch.tensor([0, 2, 4])) and result["n"] == 3
        with pytest.raises(StudentError) as raised:
            student.call("refuse", 7)
        assert raised.value.type_names[:2] == ["ValueError", "Exception"] and raised.value.message == "no 7"
        assert student.has("double") and not student.has("nothing_of_that_name")


def test_launch_gives_each_rank_its_own_arguments_and_counts_the_wire():
    cells = [IMPORTS, "def total(scale, x):\n    dist.all_reduce(x)\n    return scale * x"]
    with Submission(cells) as student:
        inputs = [torch.full((2**16,), float(rank)) for rank in range(4)]
        results, sent = student.launch("total", 4, args=(10,), rank_args=[(x,) for x in inputs], count_loopback=True)
        assert all(torch.equal(r, torch.full((2**16,), 60.0)) for r in results)
        assert sent >= 6 * 2**18, f"an all-reduce of 256 KiB on 4 ranks moves at least 1.5 MiB in all, got {sent}"


def test_the_ranks_forkserver_is_forked_from_the_worker_with_or_without_dynamo():
    """One import of torch per sandbox: the ranks' forkserver is the worker's child; torch._dynamo only when asked."""
    cell = ("import os, sys\n"
            "def where():  # [the forkserver's parent, whether torch._dynamo came imported]\n"
            "    with open(f'/proc/{os.getppid()}/stat') as f:\n"
            "        return [int(f.read().rsplit(')', 1)[1].split()[1]), 'torch._dynamo' in sys.modules]\n"
            "def worker():\n    return os.getpid()")
    for dynamo in (True, False):
        with Submission([cell], preload_dynamo=dynamo) as student:
            assert student.launch("where", 2) == [[student.call("worker"), dynamo]] * 2


def test_objects_that_are_not_plain_data_are_refused():
    cells = ["import os, torch",
             "class Liar(torch.Tensor):\n    def __eq__(self, other):\n        return True",
             "class Payload:\n    def __reduce__(self):\n        return (os.system, ('touch /tmp/distlab-pwned-test',))",
             "def liar():\n    return torch.zeros(2).as_subclass(Liar)", "def payload():\n    return Payload()"]
    with Submission(cells) as student:
        for name in ("liar", "payload"):
            with pytest.raises((SandboxError, StudentError)):
                student.call(name)
    assert not Path("/tmp/distlab-pwned-test").exists()


def test_the_sandbox_sees_no_repository_no_secrets_and_no_network():
    probe = f"""
import importlib.util, os, socket
def look():
    seen = {{'repo': os.path.exists({str(REPO / 'solutions')!r}), 'autograde': os.path.exists({str(REPO / 'autograde')!r}),
            'imports_the_grader': importlib.util.find_spec('autograde') is not None,
            'env': sorted(k for k in os.environ if 'DISTLAB' in k or 'SECRET' in k), 'pids': sum(p.isdigit() for p in os.listdir('/proc')),
            'environ_read': [], 'environ_leaks': []}}
    for pid in (p for p in os.listdir('/proc') if p.isdigit()):  # bwrap's own process is PID 1, the sandbox's user
        try:
            environ = open(f'/proc/{{pid}}/environ', 'rb').read()
        except OSError:
            continue
        seen['environ_read'].append(pid)
        if b'DISTLAB_SECRET_FOR_TEST' in environ:
            seen['environ_leaks'].append(pid)
    try:
        socket.create_connection(('1.1.1.1', 80), timeout=2)
        seen['net'] = True
    except OSError:
        seen['net'] = False
    for folder in ({str(REPO)!r}, {str(Path.home())!r}, '/tmp', '/usr'):
        try:  # a folder the sandbox may create in its own root: the real one must not change
            open(os.path.join(folder, 'distlab-sandbox-wrote-here'), 'w').write('x')
        except OSError:
            pass
    return seen
"""
    os.environ["DISTLAB_SECRET_FOR_TEST"] = "x"
    try:
        with Submission([probe]) as student:
            seen = student.call("look")
    finally:
        del os.environ["DISTLAB_SECRET_FOR_TEST"]
    assert seen["repo"] is False and seen["autograde"] is False and seen["env"] == [], seen
    # issue 45, item 3: /proc/1/environ was bwrap's, started with the grader's whole environment (41 variables)
    assert "1" in seen["environ_read"] and seen["environ_leaks"] == [], seen
    assert seen["imports_the_grader"] is False, seen  # installed (pip install -e .), its folder is still not mounted
    assert seen["net"] is False, seen
    assert seen["pids"] < 20, f"the sandbox sees {seen['pids']} processes: not its own PID namespace?"
    for folder in (REPO, Path.home(), Path("/tmp"), Path("/usr")):
        assert not (folder / "distlab-sandbox-wrote-here").exists(), f"the sandbox wrote into the real {folder}"


def test_the_sandbox_is_not_root_even_when_the_grader_is():
    """Graded as root, a sandbox mapped its user to root: it read /etc/shadow (issue 31, item 6). Now bubblewrap runs
    as nobody: the sandbox's processes belong to nobody, outside as inside."""
    probe = ("import os\ndef who():\n    try:\n        open('/etc/shadow').read(1)\n        shadow = 'read'\n"
             "    except OSError as error:\n        shadow = type(error).__name__\n    return shadow, os.getpid()")
    with Submission([probe]) as student:
        shadow, _ = student.call("who")
        owners = {p.uids().real for p in psutil.Process(student.process.pid).children(recursive=True)}
    assert shadow in ("PermissionError", "FileNotFoundError"), shadow
    if os.geteuid() == 0:
        assert owners == {65534}, f"sandbox processes belong to {owners}, not nobody"


def test_the_sandbox_cannot_make_a_user_namespace_of_its_own():
    """Nested user namespaces would give a notebook private networks and mounts, where data could move past the
    grader's loopback count (issue 31, item 4). bubblewrap >= 0.8 forbids them (--disable-userns)."""
    probe = "import ctypes\ndef nest():\n    return ctypes.CDLL(None, use_errno=True).unshare(0x10000000)  # CLONE_NEWUSER"
    with Submission([probe]) as student:
        assert student.call("nest") == -1


def test_an_environment_under_tmp_is_bound_over_the_empty_tmp(tmp_path, monkeypatch):
    """A Python or venv under /tmp (a checkout in /tmp/...) is visible in the sandbox; the rest of /tmp is not."""
    import autograde.bwrap as bwrap
    environment = tmp_path / "venv"  # tmp_path lives under /tmp: a stand-in for a virtual environment there
    environment.mkdir()
    (environment / "marker").write_text("bound")
    (tmp_path / "not-bound").write_text("secret")
    for folder in (tmp_path, *tmp_path.parents):  # pytest's folders are 700; as root the sandbox is nobody
        if os.geteuid() == 0 and folder != Path("/"):
            folder.chmod(folder.stat().st_mode | 0o001)
    paths = bwrap._read_only_paths()
    monkeypatch.setattr(bwrap, "_read_only_paths", lambda: [*paths, str(environment)])
    probe = (f"import os\ndef look():\n    return [open({str(environment / 'marker')!r}).read(), "
             f"os.path.exists({str(tmp_path / 'not-bound')!r})]")
    with Submission([probe]) as student:
        assert student.call("look") == ["bound", False]


def test_closing_the_sandbox_ends_setsid_daemons():
    marker = f"distlab-sandbox-test-{os.getpid()}"
    cell = f"import subprocess\nsubprocess.Popen(['sh', '-c', 'sleep 600; echo {marker}'], start_new_session=True)"
    with Submission([cell, "def ok():\n    return 1"]) as student:
        assert student.call("ok") == 1
        assert marker in subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout
    time.sleep(0.5)
    left = [l for l in subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True).stdout.splitlines()
            if "pgrep" not in l]
    assert not left, f"outlived its sandbox: {left}"


def test_a_call_past_its_deadline_ends_the_sandbox_and_each_later_check_starts_fresh():
    """Issue 44, item 2: after MAX_RESTARTS stops in all, every later check read "not run again"; now the limit is
    per check (`max_restarts`), and the student's budget bounds them all."""
    cells = ["import os, time", "def slow():\n    time.sleep(60)", "def die():\n    os._exit(3)",
             "def fast():\n    return 'fresh'"]
    with Submission(cells, max_restarts=1) as student:
        assert student.call("fast") == "fresh" and student.restarts == 0  # started (not timed: it imports torch)
        started = time.monotonic()
        with pytest.raises(SandboxError, match="no answer"):
            student.call("slow", timeout=3)
        assert time.monotonic() - started < sooner_than(60)  # the call's deadline, not `slow`'s 60 s
        assert student.call("fast") == "fresh" and student.restarts == 1
        with pytest.raises(SandboxError, match="exit status 3"):
            student.call("die")
        with pytest.raises(SandboxError, match="2 times in this check"):
            student.call("fast")
        student.begin_check()
        assert student.call("fast") == "fresh" and student.restarts == 2


def test_a_function_that_looped_is_not_run_again_and_the_cells_output_is_theirs():
    """Issue 44, item 2: a loop cost every check that met it a full deadline (set 05: 198 s for one student); now
    the function that ran past its deadline fails at once in later calls, in the grader and inside the sandbox, and
    the rest still runs. Issue 45, item 7: what the replayed cells wrote to stderr (logging, tqdm) was charged to the
    check that started the sandbox ("your code wrote to stderr"), at every start."""
    cells = ["import logging, sys\nlogging.basicConfig(level=logging.INFO)\nlogging.info('loading')\n"
             "print('42%|####      |', file=sys.stderr)\nprint('cell output')",
             "def loop():\n    while True:\n        pass", "def calls_loop():\n    return loop()",
             "def fast():\n    return 'fresh'"]
    with Submission(cells, call_timeout_s=3) as student:
        assert student.call("fast") == "fresh"
        assert student.take_printed() == ("", "")
        assert "loading" in student.cell_results[0]["stderr"] and student.cell_results[0]["output"] == "cell output\n"
        student.begin_check()
        with pytest.raises(SandboxError, match="no answer"):
            student.call("loop")
        student.begin_check()
        started = time.monotonic()
        with pytest.raises(SandboxError, match="not run again"):
            student.call("loop")
        assert time.monotonic() - started < 1 and student.restarts == 0, "no deadline, no fresh sandbox for it"
        assert student.call("fast") == "fresh" and student.restarts == 1
        assert student.take_printed() == ("", ""), "the fresh sandbox's replayed cells wrote that"
        with pytest.raises(StudentError, match="not run again") as raised:
            student.call("calls_loop")
        assert raised.value.type_names[0] == "NotRunAgain"  # the sandbox's own stand-in: no deadline either


def test_a_launch_past_its_deadline_stops_the_function_the_ranks_were_in():
    """Set 01's looping mutant cost 6 checks x 20 s; the launch's deadline names the function the ranks were in,
    and a later launch that calls it fails at once, while a launch that does not still runs."""
    cells = ["import time\nimport torch.distributed as dist", "def spin():\n    while True:\n        time.sleep(0.05)",
             "def through():\n    return spin()", "def rank():\n    return dist.get_rank()"]
    with Submission(cells) as student:
        with pytest.raises(StudentError, match="deadline"):
            student.launch("through", 2, timeout=3)
        assert set(student.not_run_again) == {"spin"}, student.not_run_again
        started = time.monotonic()
        with pytest.raises(StudentError, match="not run again"):
            student.launch("through", 2, timeout=30)
        assert time.monotonic() - started < sooner_than(20)
        assert student.launch("rank", 2) == [0, 1]


def test_the_budget_bounds_a_whole_submission():
    cells = ["import time", "def slow():\n    time.sleep(60)"]
    with Submission(cells, budget_s=8) as student:
        started = time.monotonic()
        for _ in range(5):
            with pytest.raises(SandboxError):
                student.call("slow")
        assert time.monotonic() - started < sooner_than(60)  # the budget, not a call's 60 s deadline
        with pytest.raises(SandboxError, match="budget"):
            student.call("slow")


def test_output_is_capped_and_stderr_is_told_apart():
    cells = ["import sys, warnings",
             "def noisy():\n    print('x' * 10_000_000)\n    return 1",
             "def advise():\n    warnings.warn('advice')\n    return 0",
             "def complains():\n    print('oops', file=sys.stderr)\n    return 2"]
    with Submission(cells) as student:
        assert student.call("noisy") == 1
        printed, errors = student.take_printed()
        assert len(printed) <= OUTPUT_CAP + 200 and "more characters of output not kept" in printed and errors == ""
        assert student.call("advise") == 0
        printed, errors = student.take_printed()
        assert "advice" in printed and errors == "", "a warning is shown on stdout"
        assert student.call("complains") == 2
        assert "oops" in student.take_printed()[1]


def test_a_forged_reply_written_ahead_is_detected():
    forge = """
import io, os, struct, sys, torch
def forge():
    buffer = io.BytesIO()
    torch.save({'output': '', 'stderr': '', 'result': 'forged'}, buffer)
    os.write(int(sys.argv[-1]), struct.pack('>I', buffer.tell()) + buffer.getvalue())
    return 'real'
"""
    with Submission([forge]) as student:
        with pytest.raises(SandboxError, match="forged"):
            student.call("forge")


def test_a_compressed_reply_is_refused_before_it_is_inflated():
    """A zip bomb: torch.save's archive rewritten with DEFLATE, 100 MB of zeros in a few hundred KB (issue 31: six
    of them took the grader from 323 MB to 2 GB). torch.save never compresses, so no compressed entry is opened."""
    bomb = """
import io, os, struct, sys, zipfile, torch
def bomb():
    plain, packed = io.BytesIO(), io.BytesIO()
    torch.save({'output': '', 'stderr': '', 'result': torch.zeros(25 * 2**20)}, plain)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(packed, 'w', zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info), compress_type=zipfile.ZIP_DEFLATED)
    os.write(int(sys.argv[-1]), struct.pack('>I', packed.tell()) + packed.getvalue())
    return 'real'
"""
    with Submission([bomb]) as student:
        with pytest.raises(SandboxError, match="compressed entries"):
            student.call("bomb")


@pytest.mark.parametrize("payload, refused", [("list(range(2_000_000))", "a pickle of"),
                                             ("[torch.zeros(1) for _ in range(20_000)]", "entries")])
def test_a_reply_that_would_load_slowly_is_refused_unloaded(payload, refused):
    """A 48 MB reply of small objects took ~20 s to load (issue 31), outside the request's deadline: a reply's pickle
    and its count of tensors are bounded before it is loaded; its tensors' own bytes may be large."""
    slow = f"""
import torch
def slow():
    return {payload}
def big():
    return torch.zeros(4 * 2**20)
"""
    with Submission([slow]) as student:
        assert student.call("big").numel() == 4 * 2**20  # 16 MB of tensor data loads at once
        started = time.monotonic()
        with pytest.raises(SandboxError, match=refused):
            student.call("slow")
        assert time.monotonic() - started < sooner_than(20)  # refused, not loaded (~20 s)


SPAWN = """
import threading
def spawn(count):
    stop, started = threading.Event(), 0
    try:
        for _ in range(count):
            threading.Thread(target=stop.wait, daemon=True).start()
            started += 1
    except RuntimeError:  # can't start new thread: the group's task limit
        pass
    stop.set()
    return started
def hog(gib):
    import torch
    return torch.ones(int(gib * 2**28)).sum().item()  # float32: gib GiB, every page written
"""


@pytest.mark.skipif(StudentGroup.available().startswith("none"), reason=StudentGroup.available())
def test_a_student_is_bounded_by_its_own_control_group():
    """Issue 31: rlimits are per process, or per user (shared by students graded side by side). One group bounds a
    student's processes and threads together, and its memory: past it, the kernel ends that student's process, not
    the grader."""
    with Submission([SPAWN], tasks=64, memory_bytes=2**30) as student:
        folders = list(student.group.folders.values())
        started = student.call("spawn", 200)
        assert 10 < started < 64, f"{started} threads started under a limit of 64 tasks"
        assert student.call("hog", 0.25) == 2**26  # 256 MiB fits
        with pytest.raises(SandboxError):
            student.call("hog", 2)  # 2 GiB does not: the OOM killer ends the worker
        assert student.call("spawn", 3) == 3  # a fresh sandbox, in the same group
    assert student.group_peak["memory_bytes"] <= 2**30 and student.group_peak["tasks"] <= 64
    assert not any(folder.exists() for folder in folders), "the group outlived the submission"


def test_a_huge_error_message_is_capped_by_the_grader():
    """The worker caps an error's text, but it runs in the student's process: patched, it sends 1.2 MB (issue 31:
    five errors of 4 MB made a 25 MiB graded notebook; a reply of more than MAX_PICKLE is refused unread). The grader
    keeps ERROR_CAP characters."""
    loud = ("import gc\nworker = next(o for o in gc.get_objects() if isinstance(o, dict) and 'CappedText' in o "
            "and 'describe' in o)\nworker['describe'] = lambda exc: {'type_names': ['ValueError'], "
            "'message': 'x' * 600_000, 'traceback': 'y' * 600_000}\ndef shout():\n    raise ValueError('loud')")
    with Submission([loud]) as student:
        with pytest.raises(StudentError) as caught:
            student.call("shout")
    assert len(caught.value.message) < ERROR_CAP + 100 and caught.value.message.endswith("characters cut]")
    assert len(caught.value.traceback) < ERROR_CAP + 100


def test_a_cell_that_kills_its_process_stops_every_check_told_once():
    """The notebook's own cells would stop every fresh sandbox the same way: one start, then each check fails at once
    with that reason (it cost each check a start, until the restarts ran out)."""
    with Submission(["import os\nos._exit(3)", "def f():\n    return 1"]) as student:
        for _ in range(4):
            student.begin_check()
            with pytest.raises(SandboxError, match="code cell 1 of the notebook"):
                student.call("f")
        assert student.restarts == 0


def test_grading_refuses_without_bubblewrap(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": str(tmp_path)}  # no bwrap on this PATH
    (tmp_path / "subs").mkdir()
    result = subprocess.run([sys.executable, "-m", "autograde.grade", "01_data_parallelism",
                             str(tmp_path / "subs"), "--out", str(tmp_path / "out")], env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and "bubblewrap" in result.stderr and "--unsafe-no-sandbox" in result.stderr


def test_memory_and_file_sizes_are_limited():
    cells = ["import torch",
             "def hog():\n    return torch.empty(20 * 2**30, dtype=torch.uint8).numel()",
             "def fill():\n    try:\n        with open('/tmp/big', 'wb') as f:\n            for _ in range(3000):\n"
             "                f.write(bytes(2**20))\n    except OSError as error:\n        return error.errno\n    return 0"]
    with Submission(cells) as student:
        with pytest.raises(StudentError, match="allocate"):
            student.call("hog")
        assert student.call("fill") == 27, "a file past the size limit (EFBIG)"


def test_every_student_group_gets_an_equal_cpu_weight_and_a_cap_on_cgroup_v2(tmp_path, monkeypatch):
    """Issue 45, item 11: a student's group had no CPU controller; an honest neighbour of 200 spinning processes was
    protected only by the kernel's autogroup. A delegated v2 tree, stood in for by a folder: the cpu controller is
    handed down, the weight is set, and `cpus` caps it."""
    import autograde.cgroup as cgroup
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (tmp_path / "grader").mkdir()
    (tmp_path / "grader" / "cgroup.controllers").write_text("cpu memory pids\n")
    (tmp_path / "grader" / "cgroup.subtree_control").write_text("\n")
    monkeypatch.setattr(cgroup, "ROOT", tmp_path)
    monkeypatch.setattr(cgroup, "_own_path", lambda controller: "/grader" if controller is None else None)
    group = cgroup.StudentGroup.create("alice", cpus=0.5)
    folder = group.folders["v2"]
    assert (folder / "cpu.weight").read_text() == str(cgroup.CPU_WEIGHT)
    assert (folder / "cpu.max").read_text() == "50000 100000"
    assert "cpu.weight" in group.describe() and "0.5 cores" in group.describe()


@pytest.mark.skipif(not StudentGroup.available().startswith("cgroup v1") or not Path("/sys/fs/cgroup/cpu").is_dir(),
                    reason="no writable cgroup v1 cpu hierarchy here")
def test_every_student_group_gets_equal_cpu_shares_on_cgroup_v1():
    group = StudentGroup.create("bob", cpus=1.0)
    try:
        assert (group.folders["cpu"] / "cpu.shares").read_text().strip() == "1024"
        assert (group.folders["cpu"] / "cpu.cfs_quota_us").read_text().strip() == "100000"
        assert "cpu.shares 1024 each, at most 1 core" in group.describe()
    finally:
        group.remove()
    assert not group.folders["cpu"].exists()


def test_each_label_seed_uses_the_whole_secret(monkeypatch):
    """Issue 45, item 12: torch's generator keeps a seed's low 32 bits, and `secret ^ crc32(label)` put the same 32
    bits of the secret into every label: a secret's upper bits changed nothing, and one check's seed gave all."""
    from autograde.sets import _common
    draws = {}
    for secret in (12345, 12345 + 2**40):
        monkeypatch.setattr(_common, "GRADING_SEED", secret)
        draws[secret] = [torch.rand(4, generator=_common.generator(label)) for label in ("a", "b")]
        assert all(0 <= _common.label_seed(label) < 2**63 for label in ("a", "b"))
    assert not torch.equal(draws[12345][0], draws[12345 + 2**40][0]), "the secret's upper bits changed nothing"
    monkeypatch.setattr(_common, "GRADING_SEED", 12345)
    low = {label: _common.label_seed(label) % 2**32 for label in ("a", "b")}
    assert low["a"] ^ low["b"] != (zlib.crc32(b"a") ^ zlib.crc32(b"b")), "two labels' seeds differ by a public constant"


def test_a_students_seconds_end_with_its_own_nbgrader_run(tmp_path):
    """Issue 45, item 12: the group's last student was timed until the next run's first line: a regrade alone, after
    every other group was done (115 s for a 17 s grading)."""
    from autograde.grade import RUN_BOUNDARY, student_seconds
    log = "\n".join([
        "2026-01-01 10:00:00 [AutogradeApp | INFO] Sanitizing /w/submitted/alice/01/x.ipynb",
        "2026-01-01 10:00:10 [AutogradeApp | INFO] Sanitizing /w/submitted/bob/01/x.ipynb",
        "2026-01-01 10:00:27 [AutogradeApp | INFO] Writing /w/autograded/bob/01/x.ipynb",
        f"{RUN_BOUNDARY} carol alone",
        "2026-01-01 10:02:00 [AutogradeApp | INFO] Sanitizing /w/submitted/carol/01/x.ipynb",
        "2026-01-01 10:02:15 [AutogradeApp | INFO] Writing /w/autograded/carol/01/x.ipynb"])
    assert student_seconds(log, tmp_path) == {"alice": 10.0, "bob": 17.0, "carol": 15.0}
