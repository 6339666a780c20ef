"""What the ranks print: a rank's warnings are shown on stdout, everything else it writes to stderr stays there.

nbgrader scores a test cell 0 when the cell wrote anything to stderr (and the learner's Validate fails it), so a warning
a correct answer happens to trigger on a rank (`torch.tensor(t)`, a deprecated collective) must not reach stderr; a
real error (a traceback, a message on stderr) must.

    pytest tests/test_output.py
"""
import multiprocessing
import os
import sys
import textwrap

import pytest
import torch
import torch.distributed as dist

import distlab
from distlab.launching._output import RankOutput

TORCH_WARNING = ("/site-packages/torch/distributed/c10d_logger.py:83: FutureWarning: `torch.distributed."
                 "all_gather_into_tensor` is deprecated. Please use `torch.distributed.all_gather_single` instead.")


def shown(chunks_by_rank: dict[int, list[bytes]], mode: str = "by_rank", capsys=None) -> tuple[str, str]:
    """(stdout, stderr) as the cell shows them after the ranks wrote `chunks` (one os.write each) to their stderr."""
    output = RankOutput(len(chunks_by_rank), mode)
    writers = []
    for rank, chunks in chunks_by_rank.items():
        out_recv, out_send = multiprocessing.Pipe(duplex=False)
        err_recv, err_send = multiprocessing.Pipe(duplex=False)
        output.add(rank, out_recv, err_recv)
        writers += [out_send, err_send]
        for chunk in chunks:
            os.write(err_send.fileno(), chunk)
            output.read(output.waitables())  # read each write apart, as the launcher does when the rank is slow
    for conn in writers:
        conn.close()
    output.drain()
    output.flush()
    return capsys.readouterr()


@pytest.mark.parametrize("mode", ["by_rank", "live"])
def test_python_warnings_go_to_stdout_whole(mode, capsys):
    """A warning's lines (message, more message lines, the source line under it) go to stdout, from any rank."""
    warnings_text = [
        b"/home/me/ring.py:12: UserWarning: To copy construct from a tensor, it is recommended to use "
        b"sourceTensor.detach().clone()\n  chunk = torch.tensor(chunks[i])\n",
        TORCH_WARNING.encode() + b"\n  return func(*args, **kwargs)\n",
        b"/tmp/ipykernel_77/2131.py:4: UserWarning: a message\nover three\nlines\n",  # no source line: a notebook cell
        b"/tmp/ipykernel_77/2131.py:9: DeprecationWarning: no source line, one line\n",
        b"[W1015 10:11:12.123456000 ProcessGroupGloo.cpp:123] Warning: a warning from torch's C++ code\n",
    ]
    out, err = shown({0: warnings_text[:3], 1: warnings_text[2:]}, mode, capsys)
    assert err == ""
    for rank, texts in ((0, warnings_text[:3]), (1, warnings_text[2:])):
        for text in texts:
            for line in text.decode().splitlines():
                assert f"[rank {rank}] {line}\n" in out


def test_a_warning_split_across_reads_stays_whole(capsys):
    """The reader may get a warning's first line in one read and the source line under it in the next."""
    out, err = shown({0: [b"/x/y.py:3: UserWarning: split", b" here\n  source", b" line\n"]}, capsys=capsys)
    assert err == ""
    assert out == "[rank 0] /x/y.py:3: UserWarning: split here\n[rank 0]   source line\n"


def test_errors_and_other_stderr_stay_on_stderr(capsys):
    """A traceback, a learner's message on stderr, a C++ error: stderr, also right after a warning in the same read."""
    out, err = shown({0: [
        b"/x/y.py:3: UserWarning: first\n  warned_here()\nTraceback (most recent call last):\n"
        b'  File "/x/y.py", line 5, in f\n    g()\nValueError: boom\n',
        b"my own message on stderr\n",
        b"/x/y.py:3: UserWarning: no source line\nTraceback (most recent call last):\n"
        b'  File "/x/y.py", line 9, in f\nRuntimeError: bad\n',
        b"[E1015 10:11:12.123456000 ProcessGroupGloo.cpp:9] an error from C++\n",
        b"  an indented line, not under a warning\n",
    ]}, capsys=capsys)
    assert out == ("[rank 0] /x/y.py:3: UserWarning: first\n[rank 0]   warned_here()\n"
                   "[rank 0] /x/y.py:3: UserWarning: no source line\n")
    assert err == textwrap.dedent("""\
        [rank 0] Traceback (most recent call last):
        [rank 0]   File "/x/y.py", line 5, in f
        [rank 0]     g()
        [rank 0] ValueError: boom
        [rank 0] my own message on stderr
        [rank 0] Traceback (most recent call last):
        [rank 0]   File "/x/y.py", line 9, in f
        [rank 0] RuntimeError: bad
        [rank 0] [E1015 10:11:12.123456000 ProcessGroupGloo.cpp:9] an error from C++
        [rank 0]   an indented line, not under a warning
        """)


def warn_then_fail_softly():
    """On real ranks: warnings of every kind, then a traceback printed to stderr (the function itself returns)."""
    import traceback
    import warnings

    t = torch.ones(4)
    copy = torch.tensor(t)  # UserWarning from torch's C++ code, about the caller's line
    gathered = torch.empty(4 * dist.get_world_size())
    dist.all_gather_into_tensor(gathered, t)  # FutureWarning from inside torch, source line `return func(...)`
    exec(compile("warnings.warn('from code without a source file,\\non two lines')", "/no/such/file.py", "exec"))
    warnings.warn("a warning whose source line is shown")
    try:
        raise ValueError("a real error")
    except ValueError:
        traceback.print_exc()
    return copy.sum().item() + gathered.sum().item()


def test_rank_warnings_reach_stdout_and_errors_stderr(capsys):
    """Through distlab.launch: every warning a rank prints is on stdout, the traceback it prints is on stderr."""
    results = distlab.launch(warn_then_fail_softly, 2, timeout=20, collective_timeout=5, backend="gloo")
    assert results == [12.0, 12.0]
    out, err = capsys.readouterr()
    for rank in (0, 1):
        assert f"[rank {rank}] Traceback (most recent call last):\n" in err
        assert f"[rank {rank}] ValueError: a real error\n" in err
        for text in ("UserWarning: To copy construct from a tensor", "FutureWarning: `torch.distributed.all_gather",
                     "  return func(*args, **kwargs)", "UserWarning: from code without a source file,", "on two lines",
                     "UserWarning: a warning whose source line is shown", 'warnings.warn("a warning whose source'):
            assert any(line.startswith(f"[rank {rank}] ") and text in line for line in out.splitlines()), (text, out)
    assert "Warning" not in err, err


def test_a_stack_dump_shows_the_learners_frames_and_one_line_per_library_call():
    """faulthandler's dump of a rank stuck in a collective: torch's frames become "in torch's `all_reduce`"."""
    from distlab.launching._output import clean_stack_dump
    dump = ('Thread 0x00007f (most recent call first):\n'
            '  File "/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3252 in '
            'all_reduce\n'
            '  File "/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 83 in wrapper\n'
            '  File "/tmp/ipykernel_1/325.py", line 5 in skips_a_collective\n'
            '  File "/venv/lib/python3.11/site-packages/numpy/core/x.py", line 9 in helper\n'
            '  File "/tmp/ipykernel_1/325.py", line 9 in main\n'
            '  File "/usr/lib/python3.11/multiprocessing/process.py", line 108 in run\n')
    assert clean_stack_dump(dump) == ["  in torch's `all_reduce`", '  File "/tmp/ipykernel_1/325.py", line 5 in '
                                      "skips_a_collective", "  in numpy's `helper`",
                                      '  File "/tmp/ipykernel_1/325.py", line 9 in main']


def test_the_lifeline_thread_is_left_out_of_a_stack_dump():
    """The dump's block of `_worker`'s lifeline thread is ours, not the learner's: it is recognised by the name of the
    function that thread runs, which _worker defines and _output names (one constant, checked here)."""
    from distlab.launching import _worker
    from distlab.launching._output import LIFELINE_THREAD, clean_stack_dump
    nested = [c.co_name for c in _worker._watch_lifeline.__code__.co_consts if hasattr(c, "co_name")]
    assert LIFELINE_THREAD in nested
    ours = ('Thread 0x00007e (most recent call first):\n'
            '  File "/usr/lib/python3.11/multiprocessing/connection.py", line 440 in poll\n'
            f'  File "/src/distlab/launching/_worker.py", line 55 in {LIFELINE_THREAD}\n'
            '  File "/usr/lib/python3.11/threading.py", line 982 in run\n')
    learners = ('Thread 0x00007f (most recent call first):\n'
                '  File "/tmp/ipykernel_1/325.py", line 5 in stuck\n')
    assert clean_stack_dump(ours + "\n" + learners) == ['  File "/tmp/ipykernel_1/325.py", line 5 in stuck']
