"""What went wrong in a launch, in one sentence: built from where each rank was (`_where`).

A rank that timed out in a collective or a `recv` waited for some peer; the wait-for graph (rank -> the peer it
waited for) is followed from the rank that failed first until it reaches a rank that was doing something else (it
had returned, it was running the learner's code, it called another collective) or closes a cycle: a deadlock.
The graph of waits is the classic tool for naming a deadlock (Coffman et al., "System Deadlocks", 1971).
"""
from __future__ import annotations

import linecache

from ..topology import RECEIVES, SENDS
from ._where import is_learners


def waiting(info: dict | None) -> bool:
    return bool(info) and "op" in info


def op_phrase(info: dict) -> str:
    """"`recv` from rank 3", "`send` to rank 1", "`recv` from any rank", "`all_reduce`"."""
    if "peer" not in info:
        return f"`{info['op']}`"
    peer = "any rank" if info["peer"] is None else f"rank {info['peer']}"
    return f"`{info['op']}` {'to' if info['op'] in SENDS else 'from'} {peer}"


def line_phrase(info: dict) -> str:
    """"line 5 of `ring`", or "`sleep`" when no frame of the learner's was running."""
    if "line" in info:
        source = linecache.getline(info.get("file", ""), info["line"]).split("  #")[0].strip()
        return f"line {info['line']} of `{info['func']}`" + (f": `{source}`" if source else "")
    return f"`{info['func']}`" if info.get("func") else "distlab's own code"


def awaited(rank: int, info: dict, wheres: dict[int, dict]) -> int | None:
    """The peer `rank` waits for: its point-to-point peer, or the first member of its collective's group that is not
    in the same collective."""
    if "peer" in info:
        return info["peer"]
    for peer in info.get("group", ()):
        other = wheres.get(peer) or {}
        if peer != rank and (other.get("op") != info["op"] or other.get("group") != info.get("group")):
            return peer
    return None


def explain_wait(first: int, waited_s: float | None, wheres: dict[int, dict], returned,
                 failed: dict[int, str]) -> str | None:
    """One sentence from the wait-for graph, starting at `first` (which timed out after `waited_s`, or was still
    waiting); None when the graph says nothing more than the error itself."""
    chain, info = [first], wheres[first]
    text = f"rank {first} " + (f"waited {waited_s:g} s" if waited_s else "was waiting") + f" in {op_phrase(info)}"
    while (peer := awaited(chain[-1], info, wheres)) is not None:
        if "peer" not in info:
            text += f" for rank {peer}"
        if peer in chain:
            return text + ": a deadlock — " + _cycle_reason([wheres[r] for r in chain[chain.index(peer):]])
        other = wheres.get(peer)
        if peer not in returned and peer not in failed and other is None:
            break  # it did not say where it was (it did not answer in time): say no more than we know
        if peer in returned:
            return text + ", which had already returned (every rank must make the same calls)"
        if peer in failed:
            return text + f", which had failed: {failed[peer]}"
        if not waiting(other):
            where = f" (at {line_phrase(other)})" if other else ""
            return text + f", which was not in any collective{where}"
        if "peer" not in other and "peer" not in info and other["op"] != info["op"]:
            return text + f", which was in `{other['op']}`: the ranks call different collectives"
        text += f", which was itself waiting in {op_phrase(other)}"
        chain.append(peer)
        info = other
    return text if len(chain) > 1 else None


def _cycle_reason(infos: list[dict]) -> str:
    ops = {info["op"] for info in infos}
    if ops <= RECEIVES:
        return "every rank receives before anyone sends"
    if ops <= SENDS:
        return "every rank sends before anyone receives"
    return "each waits for the next, in a circle"


def describe_ranks(ranks: list[int], wheres: dict[int, dict], arrived, joined, returned, stopped: bool) -> str:
    """"stopped 4 ranks; they were all in `recv` from rank 3 (at line 5 of `ring`)", or without "stopped ...;"."""
    groups: dict[str, list[int]] = {}
    for rank in ranks:
        groups.setdefault(_state(rank, wheres.get(rank), arrived, joined), []).append(rank)
    count = f"{len(ranks)} rank{'s' if len(ranks) != 1 else ''}"
    if not ranks:
        if not stopped:
            return ""
        return "stopped after every rank had returned" if returned else "stopped the launch before any rank had started"
    if len(groups) == 1:
        text = f"{'they were all' if len(ranks) > 1 else 'it was'} {next(iter(groups))}"
    else:
        text = "they were: " + "; ".join(f"rank{'s' if len(r) > 1 else ''} {', '.join(map(str, r))} {state}"
                                         for state, r in groups.items())
    if stopped:
        text = f"stopped {count}; {text}" + (f" (rank(s) {', '.join(map(str, sorted(returned)))} had returned)"
                                             if returned else "")
    return text


def _state(rank: int, info: dict | None, arrived, joined) -> str:
    if rank not in arrived:
        return "starting"
    if rank not in joined:
        return "joining the process group"
    if not info:
        return "running"
    if waiting(info):
        return f"in {op_phrase(info)}" + (f" (at {line_phrase(info)})" if "line" in info else "")
    return f"at {line_phrase(info)}" if "line" in info else f"in {line_phrase(info)}"


def learner_frames(stack) -> list[str]:
    """The frames of a traceback (`traceback.StackSummary`) that are the learner's, formatted like Python's, with a
    notebook cell named as IPython names it ("Cell In[3]")."""
    lines = []
    for frame in stack:
        if not is_learners(frame.filename):
            continue
        lines.append(f"  {_place(frame.filename)}, line {frame.lineno}, in {frame.name}")
        source = frame.line if frame.line else linecache.getline(frame.filename, frame.lineno).strip()
        if source:
            lines.append(f"    {source}")
    return lines


def _place(filename: str) -> str:
    try:
        label = get_ipython().compile.format_code_name(filename)  # noqa: F821 - defined in a kernel only
        if label:
            return " ".join(label)
    except Exception:
        pass
    return f'File "{filename}"'
