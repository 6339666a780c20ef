# replaces: zb_schedule
# differs: Part 1's order by counters with a queue of pending W's (one leaves once more than s wait), the W's left for
#   the end run in reverse order (W's of one stage are independent of each other); tuples built through a namedtuple
import collections

Op = collections.namedtuple("Op", "kind microbatch chunk")


def zb_schedule(num_stages, num_microbatches, num_chunks=1):
    """Zero bubble: one list per stage of ("F" | "B" | "W", microbatch, chunk)."""
    for name, value in {"num_stages": num_stages, "num_microbatches": num_microbatches,
                        "num_chunks": num_chunks}.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name}: expected an int, got {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be at least 1, got {value}")
    p, m, v = num_stages, num_microbatches, num_chunks
    if v >= 2 and m % p != 0:
        raise ValueError(f"interleaving needs num_microbatches ({m}) divisible by num_stages ({p})")
    forward_order = [(group * p + i, c) for group in range(m // p + 1) for c in range(v) for i in range(p)
                     if group * p + i < m]  # groups of p microbatches through chunk 0, then chunk 1, ...
    backward_order = [(mb, v - 1 - c) for mb, c in forward_order]
    schedule = []
    for s in range(p):
        warmup = min(p - s - 1, m) if v == 1 else min(2 * (p - s - 1) + (v - 1) * p, m * v)
        ops, pending, forwards = [], collections.deque(), 0
        while forwards < warmup:
            ops.append(tuple(Op("F", *forward_order[forwards])))
            forwards += 1
        for backward in backward_order:
            if forwards < m * v:
                ops.append(tuple(Op("F", *forward_order[forwards])))
                forwards += 1
            ops.append(tuple(Op("B", *backward)))
            pending.append(backward)
            if len(pending) > s:
                ops.append(tuple(Op("W", *pending.popleft())))
        ops += [tuple(Op("W", *backward)) for backward in reversed(pending)]
        schedule.append(ops)
    return schedule
