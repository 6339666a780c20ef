# replaces: zb_h1_schedule
# differs: built by simulating unit time steps, not by a formula: each stage runs an F when its input is there and
#   1F1B's and ZB-H1's memory bounds allow, else a B whose input is there, else a pending W (another valid order
#   than the reference's for many (p, m), with the same makespan)
def zb_h1_schedule(num_stages, num_microbatches):
    """ZB-H1 (Qi et al. 2023, §3.1): one list per stage of ("F" | "B" | "W", microbatch, 0)."""
    p, m = num_stages, num_microbatches
    for name, value in (("num_stages", p), ("num_microbatches", m)):
        if type(value) is not int or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    ops, ended, done = [[] for _ in range(p)], {}, {op: [0] * p for op in "FBW"}
    t = 0
    while any(n < m for n in done["W"]):
        t += 1
        for s in range(p):
            finished = lambda key: ended.get(key, t) < t  # noqa: E731 - ended in an earlier step
            f, b, w = done["F"][s], done["B"][s], done["W"][s]
            can = {"F": f < m and f - b < p - s and f - w < min(p, m) and (s == 0 or finished(("F", f, s - 1))),
                   "B": b < f and finished(("B", b, s + 1) if s < p - 1 else ("F", b, s)),
                   "W": w < b}
            op = next((op for op in "FBW" if can[op]), None)
            if op is not None:
                ended[op, done[op][s], s] = t
                ops[s].append((op, done[op][s], 0))
                done[op][s] += 1
    return ops
