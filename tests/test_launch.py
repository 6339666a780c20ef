"""distlab.launch: results, output, and every way a launch can fail, each with its time bound and no process left.

    pytest tests/test_launch.py
"""
import os
import random
import re
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time

import psutil
import pytest
import torch
import torch.distributed as dist

import distlab
from _timing import SLACK, sooner_than

STOP_S = 2.0 * SLACK  # Ctrl-C at any moment of a launch stops every rank within this (2 s on an idle machine)



def rank_workers() -> list[psutil.Process]:
    """Live rank processes: the forkserver's children (the forkserver is a child of this process)."""
    workers = []
    for child in psutil.Process().children():
        try:
            if "forkserver" in " ".join(child.cmdline()):
                workers += [p for p in child.children() if p.status() != psutil.STATUS_ZOMBIE]
        except psutil.NoSuchProcess:
            pass
    return workers


@pytest.fixture(scope="module", autouse=True)
def warm_forkserver():
    """Time bounds below are for a warm launch: start the forkserver (it imports torch once) before any test."""
    distlab.launch(int, world_size=1)


@pytest.fixture(autouse=True)
def no_workers_left():
    """Every test must leave no rank process behind."""
    yield
    deadline = time.monotonic() + 2.0  # killed ranks need a moment to be reaped by the forkserver
    while rank_workers() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert rank_workers() == [], "rank processes outlived their launch"


def timed(fn, *args, **kwargs):
    start = time.monotonic()
    try:
        return fn(*args, **kwargs), time.monotonic() - start
    except Exception as exc:
        exc.elapsed = time.monotonic() - start
        raise


# --- results and output ---------------------------------------------------------------------------------------

def _sum_of_ranks(offset, scale=1):
    t = torch.tensor([dist.get_rank() + offset])
    dist.all_reduce(t)
    return {"rank": dist.get_rank(), "world": dist.get_world_size(), "sum": t * scale}


def test_results_come_back_in_rank_order_with_args_and_kwargs():
    results = distlab.launch(_sum_of_ranks, world_size=3, args=(10,), kwargs={"scale": 2})
    assert [r["rank"] for r in results] == [0, 1, 2]
    assert all(r["world"] == 3 for r in results)
    assert all(torch.equal(r["sum"], torch.tensor([66])) for r in results)  # (10+11+12)*2


def test_closures_and_local_classes_travel_by_value():
    class Box:
        def __init__(self, value):
            self.value = value

    factor = 7

    def work():
        return Box(dist.get_rank() * factor)

    assert [b.value for b in distlab.launch(work, world_size=2)] == [0, 7]


def test_a_function_using_dist_and_an_attribute_named_config_travels():
    """cloudpickle takes `dist.config` (torch.distributed.config, a module of a ModuleType subclass) for a submodule
    the function uses when it reads any `.config`, e.g. `model.config`: distlab sends it by name."""
    class Model:
        config = 3

    def read_config():
        dist.barrier()
        return Model().config

    assert distlab.launch(read_config, 2, timeout=30) == [3, 3]


def test_process_group_is_gloo_with_one_thread_per_rank_and_destroyed_after():
    def work():
        return dist.get_backend(), torch.get_num_threads(), dist.is_initialized()

    assert distlab.launch(work, world_size=2) == [("gloo", 1, True)] * 2
    assert distlab.launch(lambda: torch.get_num_threads(), world_size=1, threads=2) == [2]


def test_output_is_prefixed_and_sorted_by_rank(capsys):
    def talk():
        time.sleep(0.05 * (3 - dist.get_rank()))  # rank 3 speaks first...
        print(f"hello from {dist.get_rank()}")
        print(f"warning on {dist.get_rank()}", file=sys.stderr)

    distlab.launch(talk, world_size=4)
    out, err = capsys.readouterr()
    assert out == "".join(f"[rank {r}] hello from {r}\n" for r in range(4))  # ...but rank 0 is shown first
    assert err == "".join(f"[rank {r}] warning on {r}\n" for r in range(4))


def test_live_output_and_hidden_output(capsys):
    distlab.launch(lambda: print("live", dist.get_rank()), world_size=2, output="live")
    out, _ = capsys.readouterr()
    assert sorted(out.splitlines()) == ["[rank 0] live 0", "[rank 1] live 1"]
    distlab.launch(lambda: print("quiet"), world_size=2, output="hide")
    assert capsys.readouterr().out == ""


def test_tensors_come_back_on_cpu_and_large_results_do_not_block():
    results = distlab.launch(lambda: torch.full((4_000_000,), float(dist.get_rank())), world_size=2)
    assert [r.device.type for r in results] == ["cpu", "cpu"]
    assert results[1].sum().item() == 4_000_000


# --- bad input ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, word", [
    ({"world_size": 0}, "world_size"), ({"world_size": 2.0}, "world_size"), ({"timeout": 0}, "timeout"),
    ({"collective_timeout": -1}, "collective_timeout"), ({"threads": 0}, "threads"), ({"output": "x"}, "output"),
    ({"backend": "mpi"}, "backend"), ({"backend": "nccl", "world_size": 64}, "one GPU per rank"),
])
def test_bad_arguments_are_named(kwargs, word):
    with pytest.raises(ValueError, match=word):
        distlab.launch(print, **kwargs)


def test_unpicklable_arguments_are_reported_before_any_rank_starts():
    with pytest.raises(TypeError, match="picklable"):
        distlab.launch(print, world_size=2, args=(threading.Lock(),))
    with pytest.raises(TypeError, match="callable"):
        distlab.launch(42, world_size=2)


def test_unpicklable_return_value_names_the_rank():
    with pytest.raises(distlab.RankFailed, match="rank 0 failed first.*return value"):
        distlab.launch(lambda: threading.Lock(), world_size=1)


# --- failures: which rank, how fast, nothing left -------------------------------------------------------------

def _raises_on(bad_rank):
    if dist.get_rank() == bad_rank:
        raise ValueError(f"boom on {bad_rank}")
    dist.barrier()  # the others wait for the failing rank, as they would in training


def test_a_raising_rank_is_named_with_its_own_traceback_at_once():
    with pytest.raises(distlab.RankFailed) as info:
        timed(distlab.launch, _raises_on, world_size=4, args=(2,), timeout=30)
    err = info.value
    assert err.rank == 2 and isinstance(err.exception, ValueError)
    first, *frames = str(err).split("\n\n")[0].splitlines()
    assert first == "rank 2 failed first: ValueError: boom on 2"  # what happened, in one line, first
    assert frames == [f'  File "{__file__}", line {_raises_on.__code__.co_firstlineno + 2}, in _raises_on',
                      '    raise ValueError(f"boom on {bad_rank}")']  # then the learner's frames, and only them
    assert err.traceback_text.startswith("Traceback (most recent call last):")  # the whole of it, kept
    assert err.unfinished == [0, 1, 3]
    assert err.elapsed < sooner_than(30)  # the raise ended it, not the launch's deadline


def test_the_rank_that_failed_first_is_named_when_others_fail_later(tmp_path):
    def cascade(folder):
        # Rank r raises once rank r - 1's failure has been reported: a thread of rank r - 1 waits until the rank has
        # sent its error (time-stamped, distlab.launching._worker), then writes its marker. Ordered by what happened,
        # with no margin left to the scheduler (a marker written just before raising lost, once, to a loaded CI:
        # rank 0 was descheduled between the two and rank 1's stamp came first).
        from distlab.launching import _worker
        rank = dist.get_rank()
        while rank > 0 and not os.path.exists(os.path.join(folder, f"reported-{rank - 1}")):
            time.sleep(0.01)

        def mark_once_reported():
            _worker._reported.wait()
            open(os.path.join(folder, f"reported-{rank}"), "w").close()

        threading.Thread(target=mark_once_reported, daemon=True).start()
        raise RuntimeError(f"failure {rank}")

    with pytest.raises(distlab.RankFailed, match="rank 0 failed first: RuntimeError: failure 0"):
        distlab.launch(cascade, world_size=3, args=(str(tmp_path),))


def test_system_exit_in_a_rank_is_reported_not_swallowed():
    def leave():
        sys.exit(3)

    with pytest.raises(distlab.RankFailed, match="SystemExit"):
        distlab.launch(leave, world_size=2)


@pytest.mark.parametrize("how, expected", [
    (lambda: os.kill(os.getpid(), signal.SIGKILL), "was killed by signal SIGKILL"),
    (lambda: os.kill(os.getpid(), signal.SIGSEGV), "was killed by signal SIGSEGV"),
    (lambda: os._exit(3), "exited with code 3"),
])
def test_a_rank_that_dies_is_named_with_its_signal_or_code(how, expected):
    def die():
        if dist.get_rank() == 1:
            how()
        dist.barrier()

    with pytest.raises(distlab.RankCrashed, match=f"rank 1 {expected}") as info:
        timed(distlab.launch, die, world_size=3, timeout=30)
    assert info.value.rank == 1 and info.value.elapsed < sooner_than(30)


def test_a_hung_rank_hits_the_collective_timeout_and_is_named_as_unfinished():
    def hang():
        if dist.get_rank() == 3:
            time.sleep(600)
        dist.barrier()

    with pytest.raises(distlab.RankFailed, match="Timed out") as info:
        timed(distlab.launch, hang, world_size=4, timeout=30, collective_timeout=1.5)
    assert re.match(r"rank [012] waited 1.5 s in `barrier` for rank 3, which was not in any collective \(at line "
                    rf"{hang.__code__.co_firstlineno + 2} of `hang`: `time.sleep\(600\)`\)\n", str(info.value))
    assert info.value.unfinished == [3]
    assert "Still running when it happened, and killed: rank(s) 3" in str(info.value)
    assert info.value.elapsed < sooner_than(30)  # the collective timeout, not the launch's deadline


def test_a_rank_that_returns_early_is_named_and_does_not_close_its_sockets_under_its_peers():
    def skip_on_3():
        if dist.get_rank() != 3:
            dist.all_reduce(torch.ones(4))

    with pytest.raises(distlab.RankFailed) as info:
        distlab.launch(skip_on_3, world_size=4, timeout=30, collective_timeout=1.5)
    assert "Timed out" in info.value.summary  # a timeout, not a misleading "Connection closed by peer"
    assert re.match(r"rank [012] waited 1.5 s in `all_reduce` for rank 3, which had already returned",
                    str(info.value))
    assert "Had already returned: rank(s) 3" in str(info.value)


def test_the_wall_clock_deadline_kills_every_rank_and_shows_where_they_were(capsys):
    def stuck():
        if dist.get_rank() != 0:
            time.sleep(600)  # no collective here: only the deadline can end this

    with pytest.raises(distlab.LaunchTimeout) as info:
        timed(distlab.launch, stuck, world_size=3, timeout=1.5)
    err = info.value
    assert err.unfinished == [1, 2] and err.finished == [0]
    assert str(err).splitlines()[0] == ("launch deadline of 1.5 s passed: rank(s) 1, 2 did not finish (rank(s) 0 "
                                        f"did): they were all at line {stuck.__code__.co_firstlineno + 2} of `stuck`: "
                                        "`time.sleep(600)`")
    assert err.elapsed < 1.5 + STOP_S
    stacks = capsys.readouterr().err
    assert "[rank 1] where rank 1 was stuck" in stacks and "in stuck" in stacks  # faulthandler's dump
    assert os.path.dirname(distlab.__file__) not in stacks and "multiprocessing" not in stacks  # no plumbing shown


def _ring_that_receives_first():
    rank, world = dist.get_rank(), dist.get_world_size()
    t = torch.zeros(2)
    dist.recv(t, src=(rank - 1) % world)
    dist.send(t, dst=(rank + 1) % world)


def test_a_deadlock_is_named_in_one_sentence_from_the_wait_for_graph():
    """Each rank waits in `recv` for the one before it: the first to time out starts a chain that closes a cycle."""
    with pytest.raises(distlab.RankFailed) as info:
        timed(distlab.launch, _ring_that_receives_first, world_size=3, timeout=30, collective_timeout=1.5)
    first, *frames = str(info.value).splitlines()
    waits = r"in `recv` from rank (\d)"
    match = re.fullmatch(rf"rank (\d) waited 1.5 s {waits}, which was itself waiting {waits}, which was itself waiting "
                         rf"{waits}: a deadlock — every rank receives before anyone sends", first)
    assert match, first
    a, b, c, back = map(int, match.groups())
    assert (b, c, back) == ((a - 1) % 3, (a - 2) % 3, a)
    assert frames[:2] == [f'  File "{__file__}", line {_ring_that_receives_first.__code__.co_firstlineno + 3}, in '
                          "_ring_that_receives_first", "    dist.recv(t, src=(rank - 1) % world)"]
    assert info.value.elapsed < sooner_than(30)  # the collective timeout, not the launch's deadline


@pytest.mark.parametrize("wheres, failed, expected", [
    ({0: {"op": "all_reduce", "group": [0, 1, 2]}, 1: {"op": "barrier", "group": [0, 1, 2]},
      2: {"op": "all_reduce", "group": [0, 1, 2]}}, {},
     "rank 0 waited 2 s in `all_reduce` for rank 1, which was in `barrier`: the ranks call different collectives"),
    ({0: {"op": "send", "peer": 1}, 1: {"op": "send", "peer": 0}}, {}, "rank 0 waited 2 s in `send` to rank 1, which "
     "was itself waiting in `send` to rank 0: a deadlock — every rank sends before anyone receives"),
    # the object calls are sends too (distlab.topology's SENDS; _explain's own list had left them out)
    ({0: {"op": "send_object_list", "peer": 1}, 1: {"op": "send_object_list", "peer": 0}}, {}, "rank 0 waited 2 s in "
     "`send_object_list` to rank 1, which was itself waiting in `send_object_list` to rank 0: a deadlock — every "
     "rank sends before anyone receives"),
    ({0: {"op": "recv", "peer": 1}, 1: {"op": "all_reduce", "group": [0, 1]}}, {}, "rank 0 waited 2 s in `recv` from "
     "rank 1, which was itself waiting in `all_reduce` for rank 0: a deadlock — each waits for the next, "
     "in a circle"),
    ({0: {"op": "recv", "peer": 1}}, {1: "ValueError: x"}, "rank 0 waited 2 s in `recv` from rank 1, which had failed: "
     "ValueError: x"),
    ({0: {"op": "recv", "peer": 1}}, {}, None),  # rank 1 did not say where it was: nothing more than the error
])
def test_the_wait_for_graph_in_one_sentence(wheres, failed, expected):
    from distlab.launching._explain import explain_wait
    assert explain_wait(0, 2.0, wheres, set(), failed) == expected


def test_only_point_to_point_calls_wait_for_one_peer():
    """A broadcast's `src` is its root, not the one rank it waits for: it waits for its group (here, with no process
    group, unknown) as every collective does."""
    from distlab.launching._where import _peers
    assert _peers({"src": 3, "group": None}, "recv") == {"peer": 3}
    assert "peer" not in _peers({"src": 0, "group": None}, "broadcast")


def _arrive_then_sleep(folder):
    dist.barrier()
    open(os.path.join(folder, f"arrived{dist.get_rank()}"), "w").close()
    time.sleep(600)


@pytest.fixture
def python_takes_sigint():
    """Ctrl-C raises KeyboardInterrupt in this process, as in a terminal or a kernel running a cell. A pytest started in
    the background (`pytest ... &`, `nohup`) inherits SIGINT ignored, and Python then installs no handler: without
    this, every interrupt below would be lost and the launches would run to their deadlines."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def interrupt_when(condition, sent_at: list, cancel: threading.Event | None = None) -> threading.Thread:
    """A thread (not started yet) that sends this process a SIGINT once `condition()` holds, unless `cancel` is set
    first (a launch that failed otherwise: no SIGINT may land later, in another test or in pytest itself)."""
    cancel = cancel or threading.Event()

    def send():
        while not condition():
            if cancel.is_set():
                return
            time.sleep(0.02)
        sent_at.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    return threading.Thread(target=send, daemon=True)


def test_ctrl_c_stops_every_rank_and_says_where_they_were(tmp_path, python_takes_sigint):
    sent_at, cancel = [], threading.Event()
    interrupt_when(lambda: len(os.listdir(tmp_path)) == 3, sent_at, cancel).start()
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            distlab.launch(_arrive_then_sleep, world_size=3, args=(str(tmp_path),), timeout=60)
    finally:
        cancel.set()
    assert time.monotonic() - sent_at[0] < STOP_S
    line = _arrive_then_sleep.__code__.co_firstlineno + 3
    assert str(info.value) == f"stopped 3 ranks; they were all at line {line} of `_arrive_then_sleep`: " \
                              "`time.sleep(600)`"
    assert type(info.value) is KeyboardInterrupt  # the kernel sees an interruption: Run All stops


def test_ctrl_c_that_lands_on_another_thread_still_stops_every_rank(python_takes_sigint):
    """Linux hands a process's SIGINT to any thread that does not block it; Python then only sets a flag for the main
    thread. CI lost a Ctrl-C this way (issue 14): the launch slept in its pipes until its deadline. Here the main
    thread blocks SIGINT, so another thread must take it, and the launch must still stop within 2 s."""
    sent_at = []

    def interrupt():
        time.sleep(1.0)
        sent_at.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)

    sender = threading.Thread(target=interrupt)
    sender.start()  # before blocking: a thread inherits its creator's signal mask
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with pytest.raises(KeyboardInterrupt):
            distlab.launch(time.sleep, world_size=3, args=(600,), timeout=60)
        stopped_at = time.monotonic()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        sender.join()
    assert stopped_at - sent_at[0] < STOP_S




def _steps():
    """Start-up, then collectives, then the return: a Ctrl-C may land in any of them."""
    t = torch.ones(256)
    for _ in range(20):
        dist.all_reduce(t)
        time.sleep(0.01)
    return t[0].item()


@pytest.fixture
def cpu_load():
    """Two processes that spin: a loaded CI machine, where a Ctrl-C was once lost."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


def test_ctrl_c_at_random_moments_of_launches_under_load_stops_every_rank_within_2s(cpu_load, python_takes_sigint):
    """Random moments, across start-up, collectives, return and teardown (the forkserver is warm here; a cold one: the
    next test), drawn afresh each run; a failure names its seed: DISTLAB_CTRL_C_SEED=<seed> replays it, and
    DISTLAB_CTRL_C_SOAK=<n> runs n interrupts instead of 8."""
    seed = int(os.environ.get("DISTLAB_CTRL_C_SEED") or random.randrange(10**6))
    moments = random.Random(seed).choices(range(0, 1500, 10), k=int(os.environ.get("DISTLAB_CTRL_C_SOAK", 8)))
    for delay_ms in moments:
        where = f"Ctrl-C {delay_ms} ms in (DISTLAB_CTRL_C_SEED={seed})"
        sent_at, cancel = [], threading.Event()
        started = time.monotonic()
        sender = interrupt_when(lambda: time.monotonic() - started > delay_ms / 1000, sent_at, cancel)
        try:
            sender.start()  # the interrupt may land before `start` returns (a moment near 0 ms): caught below too
            while time.monotonic() - started < delay_ms / 1000 + 10:  # back to back: it lands in one, or between two
                distlab.launch(_steps, world_size=3, timeout=60, output="hide")
            pytest.fail(f"{where}: lost (launches went on for 10 s)")
        except KeyboardInterrupt:
            caught_at = time.monotonic()
        finally:
            cancel.set()  # a launch that raised something else: its pending interrupt must not land later
            sender.join()
        assert caught_at - sent_at[0] < STOP_S, f"{where}: raised after {caught_at - sent_at[0]:.1f} s"
        while rank_workers() and time.monotonic() - sent_at[0] < STOP_S:
            time.sleep(0.02)
        assert rank_workers() == [], f"{where}: ranks alive {STOP_S} s later"


def _ranks_of(pid: int) -> list[int]:
    """The live rank processes of a process: its descendants but the forkserver and the resource tracker."""
    ranks = []
    for process in psutil.Process(pid).children(recursive=True):
        try:
            if not any(word in " ".join(process.cmdline()) for word in ("forkserver", "resource_tracker")) \
                    and process.status() != psutil.STATUS_ZOMBIE:
                ranks.append(process.pid)
        except psutil.NoSuchProcess:
            pass
    return ranks


COLD_START_SCRIPT = """
import signal, sys, time, torch, torch.distributed as dist, distlab
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started with SIGINT ignored (python_takes_sigint)
def steps():
    t = torch.ones(4)
    for _ in range(20):
        dist.all_reduce(t)
    return 1
print("ready", flush=True)
try:
    while True:
        distlab.launch(steps, world_size=3, timeout=60, output="hide")
except KeyboardInterrupt:
    print("stopped", flush=True)
time.sleep(60)
"""


def _line_within(child: subprocess.Popen, seconds: float) -> str:
    """The child's next line of output, or "" if none came within `seconds` (a lost interrupt fails, not hangs)."""
    ready, _, _ = select.select([child.stdout], [], [], seconds)
    return child.stdout.readline() if ready else ""


def test_ctrl_c_while_the_forkserver_starts_stops_every_rank(tmp_path):
    """A fresh process: its first launch waits for the forkserver to import torch; the Ctrl-C lands then, or in one
    of the first launches. The ranks the forkserver forks for a launch already stopped leave at once. (Two imports
    of torch load the machine enough; DISTLAB_CTRL_C_COLD=<n> runs n fresh processes instead of 1.)"""
    script = tmp_path / "cold.py"
    script.write_text(COLD_START_SCRIPT)
    rng = random.Random(int(os.environ.get("DISTLAB_CTRL_C_SEED", 3)))
    for _ in range(int(os.environ.get("DISTLAB_CTRL_C_COLD", 1))):
        child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
        try:
            assert _line_within(child, 120) == "ready\n"  # it imported torch
            time.sleep(rng.uniform(0, 3))
            sent_at = time.monotonic()
            child.send_signal(signal.SIGINT)
            assert _line_within(child, 10) == "stopped\n"
            assert time.monotonic() - sent_at < STOP_S
            while _ranks_of(child.pid) and time.monotonic() - sent_at < STOP_S:
                time.sleep(0.02)
            assert _ranks_of(child.pid) == []
        finally:
            child.kill()
            child.wait()


# --- start-up: its own deadline, apart from collectives ---------------------------------------------------------

class _SlowToArrive:
    """An argument whose unpickling, in rank `rank` only, takes `seconds`: that rank starts late (an overloaded
    machine forks slowly), before it even tries to join the process group."""

    def __init__(self, rank: int, seconds: float):
        self.rank, self.seconds = rank, seconds

    def __reduce__(self):
        return _arrive_late, (self.rank, self.seconds)


def _arrive_late(rank, seconds):
    import multiprocessing
    if multiprocessing.current_process().name == f"distlab-rank-{rank}":
        time.sleep(seconds)
    return rank


def _all_reduce_ones(_):
    t = torch.ones(1)
    dist.all_reduce(t)
    return t.item()


def test_a_rank_that_never_joins_is_named_as_such_not_as_a_failed_collective():
    with pytest.raises(distlab.StartupTimeout) as info:
        timed(distlab.launch, _all_reduce_ones, world_size=4, args=(_SlowToArrive(3, 600),), timeout=60,
              startup_timeout=5, collective_timeout=30)
    err = info.value
    assert err.missing == [0, 1, 2, 3] and 3 in err.never_started  # the others wait for it (or, loaded, start late)
    assert str(err).startswith("rank(s) 0, 1, 2, 3 did not join the process group within 5 s: rank(s) ")
    assert "had not started" in str(err)
    assert err.elapsed < sooner_than(60)  # the start-up deadline, not the launch's 60 s


def test_collective_timeout_bounds_collectives_not_the_start_up():
    """A rank 3 s late to join is waited for, although one collective may wait only 1 s for its peers."""
    assert distlab.launch(_all_reduce_ones, world_size=3, args=(_SlowToArrive(2, 3),), timeout=60,
                          collective_timeout=1) == [3.0] * 3


def test_groups_made_by_new_group_obey_collective_timeout():
    def subgroup_waits_for_a_peer_that_never_comes():
        group = dist.new_group([0, 1])
        if dist.get_rank() == 0:
            dist.all_reduce(torch.ones(1), group=group)  # rank 1 never joins this one
        else:
            time.sleep(600 if dist.get_rank() == 1 else 0)

    with pytest.raises(distlab.RankFailed, match="rank 0 waited 1.5 s in `all_reduce` for rank 1, which was not in "
                                                 "any collective (?s:.*)Timed out") as info:
        timed(distlab.launch, subgroup_waits_for_a_peer_that_never_comes, world_size=3, timeout=60,
              collective_timeout=1.5)
    assert info.value.elapsed < sooner_than(60)  # not the launch's deadline: torch's default for new groups is 30 min


def test_eight_launches_at_once_do_not_clash():
    results, errors = {}, []

    def one(i):
        try:
            results[i] = distlab.launch(_sum_of_ranks, world_size=2, args=(i,), output="hide", timeout=60)
        except Exception as exc:  # pragma: no cover - reported by the assert below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert {i: r[0]["sum"].item() for i, r in results.items()} == {i: 2 * i + 1 for i in range(8)}


def test_no_rank_outlives_a_killed_notebook(tmp_path):
    """If the kernel itself dies (SIGKILL, no cleanup), the ranks notice their lifeline close and exit."""
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent("""
        import os, time, torch.distributed as dist, distlab
        def report_and_wait():
            print("pid", os.getpid(), flush=True)
            time.sleep(600)
        distlab.launch(report_and_wait, world_size=2, output="live", timeout=300)
    """))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(parent.stdout.readline().split()[-1]) for _ in range(2)]
        assert all(psutil.pid_exists(pid) for pid in pids)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in pids), "ranks outlived their notebook"
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
