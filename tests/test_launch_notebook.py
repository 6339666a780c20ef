"""distlab.launch inside a real Jupyter kernel: what a learner does in a cell, including pressing the stop button.

    pytest tests/test_launch_notebook.py
"""
import queue
import re
import textwrap
import time

import psutil
import pytest
from jupyter_client.manager import start_new_kernel
from _timing import SLACK


@pytest.fixture(scope="module")
def kernel():
    manager, client = start_new_kernel(kernel_name="python3")
    try:
        yield manager, client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def run_cell(client, code: str, timeout: float = 60) -> tuple[str, str, dict | None]:
    """Execute `code`; return (stdout, stderr, error) as the notebook would show them."""
    msg_id = client.execute(textwrap.dedent(code))
    out, err, error = [], [], None
    deadline = time.monotonic() + timeout
    while True:
        try:
            msg = client.get_iopub_msg(timeout=max(deadline - time.monotonic(), 0.1))
        except queue.Empty:
            raise TimeoutError(f"cell did not finish in {timeout} s:\n{code}")
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            (out if content["name"] == "stdout" else err).append(content["text"])
        elif kind == "error":
            error = content
        elif kind == "status" and content["execution_state"] == "idle":
            return "".join(out), "".join(err), error


def kernel_rank_workers(manager) -> list[psutil.Process]:
    kernel = psutil.Process(manager.provisioner.process.pid)
    return [p for child in kernel.children() if "forkserver" in " ".join(child.cmdline())
            for p in child.children() if p.status() != psutil.STATUS_ZOMBIE]


def test_notebook_defined_functions_classes_and_closures_run_on_4_ranks(kernel):
    _, client = kernel
    run_cell(client, "import distlab, torch, torch.distributed as dist")
    out, _, error = run_cell(client, """
        class Counter:
            def __init__(self, start):
                self.value = start
        def make_worker(step):
            def worker():
                c = Counter(dist.get_rank())
                t = torch.tensor([c.value * step])
                dist.all_reduce(t)
                print("total", t.item())
                return c
            return worker
        print([c.value for c in distlab.launch(make_worker(10), world_size=4)])
    """)
    assert error is None
    assert out == "".join(f"[rank {r}] total 60\n" for r in range(4)) + "[0, 1, 2, 3]\n"


def test_a_failing_rank_shows_the_line_of_the_cell(kernel):
    _, client = kernel
    _, _, error = run_cell(client, """
        def broken():
            if dist.get_rank() == 3:
                values = {}
                return values["missing"]
            dist.barrier()
        distlab.launch(broken, world_size=4)
    """)
    assert error is not None and error["ename"] == "RankFailed"
    assert "rank 3 failed first: KeyError: 'missing'" in error["evalue"]
    assert 'return values["missing"]' in error["evalue"]  # the cell's own source line, looked up in the kernel
    shown = "\n".join(error["traceback"]).splitlines()  # what the notebook shows: first what happened, then where
    assert shown[0].endswith("RankFailed\x1b[0m: rank 3 failed first: KeyError: 'missing'")
    assert re.fullmatch(r"  Cell In\[\d+\], line 4, in broken", shown[1]) and shown[2] == '    return values["missing"]'
    assert "distlab" not in "\n".join(shown)  # no frame of the launcher's


def test_the_stop_button_stops_every_rank(kernel, tmp_path):
    manager, client = kernel
    run_cell(client, "import distlab, time, torch.distributed as dist")
    msg_id = client.execute(textwrap.dedent(f"""
        def joined_then_sleep():
            dist.barrier()
            open(f"{tmp_path}/{{dist.get_rank()}}", "w").close()
            time.sleep(600)
        distlab.launch(joined_then_sleep, world_size=4, timeout=300)
    """))
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) < 4 and time.monotonic() < deadline:  # every rank is in `time.sleep`
        time.sleep(0.1)
    assert len(kernel_rank_workers(manager)) == 4
    start = time.monotonic()
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=10)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = client.get_shell_msg(timeout=10)
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt"
    line = "stopped 4 ranks; they were all at line 4 of `joined_then_sleep`: `time.sleep(600)`"
    assert reply["content"]["evalue"] == line
    assert reply["content"]["traceback"] == [f"\x1b[0;31mKeyboardInterrupt\x1b[0m: {line}"]  # not a traceback through
    # selectors.py
    while kernel_rank_workers(manager) and time.monotonic() - start < 2 * SLACK:
        time.sleep(0.05)
    assert kernel_rank_workers(manager) == []
    assert time.monotonic() - start < 2 * SLACK  # 2 s on an idle machine; the ranks would sleep 600 s


def test_the_torchrun_cell_magic_runs_the_cell_as_a_script(kernel):
    _, client = kernel
    run_cell(client, "import distlab")  # registers the magic (this test may run alone)
    out, _, error = run_cell(client, """\
        %%torchrun --nproc-per-node 2 --timeout 120
        import torch.distributed as dist
        dist.init_process_group("gloo")
        for step in range(30):  # print() writes its words one by one: lines of two ranks may cross mid-line
            print("hello from", dist.get_rank(), "step", step, flush=True)
        dist.destroy_process_group()
    """, timeout=150)
    assert error is None, error
    hellos = [line for line in out.splitlines() if "hello" in line]
    assert sorted(hellos) == sorted(f"[default{rank}]:hello from {rank} step {step}"
                                    for rank in (0, 1) for step in range(30)), "lines lost, or crossed mid-line"
