# replaces: zb_h1_schedule
# differs: 1F1B's order by counters with a queue of pending W's (one leaves once more than s wait), and the W's left
#   for the end run in reverse microbatch order (W's of one stage are independent of each other); tuples built
#   through a namedtuple
import collections

Op = collections.namedtuple("Op", "kind microbatch chunk")


def zb_h1_schedule(num_stages, num_microbatches):
    """ZB-H1 (Qi et al. 2023, §3.1): one list per stage of ("F" | "B" | "W", microbatch, 0)."""
    for name, value in {"num_stages": num_stages, "num_microbatches": num_microbatches}.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name}: expected an int, got {type(value).__name__}")
        if value <= 0:
            raise ValueError(f"{name} must be at least 1, got {value}")
    p, m = num_stages, num_microbatches
    schedule = []
    for s in range(p):
        ops, pending, forwards, backwards = [], collections.deque(), 0, 0
        while forwards < min(p - s - 1, m):
            ops.append(tuple(Op("F", forwards, 0)))
            forwards += 1
        while backwards < m:
            if forwards < m:
                ops.append(tuple(Op("F", forwards, 0)))
                forwards += 1
            ops.append(tuple(Op("B", backwards, 0)))
            pending.append(backwards)
            backwards += 1
            if len(pending) > s:
                ops.append(tuple(Op("W", pending.popleft(), 0)))
        ops += [tuple(Op("W", mb, 0)) for mb in reversed(pending)]
        schedule.append(ops)
    return schedule
