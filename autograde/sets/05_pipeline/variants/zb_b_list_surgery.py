# replaces: zb_schedule
# differs: each stage's list is Part 1's order with B for its backwards (built by the F's and B's positions), then each
#   W inserted right after the B that comes s backwards later (or appended), by list surgery
def zb_schedule(num_stages, num_microbatches, num_chunks=1):
    """Zero bubble: one list per stage of ("F" | "B" | "W", microbatch, chunk)."""
    sizes = (num_stages, num_microbatches, num_chunks)
    if not all(type(n) is int for n in sizes):
        raise ValueError(f"sizes must be ints, got {sizes!r}")
    if min(sizes) < 1:
        raise ValueError(f"sizes must be positive, got {sizes}")
    p, m, v = sizes
    if v > 1 and m % p:
        raise ValueError(f"{m} microbatches do not split into groups of {p} stages")
    jobs = m * v
    forwards = [((j // (p * v)) * p + j % p, (j // p) % v) for j in range(jobs)]
    backwards = [(mb, v - 1 - c) for mb, c in forwards]
    schedule = []
    for s in range(p):
        warmup = min(p - s - 1, m) if v == 1 else min(2 * (p - s - 1) + (v - 1) * p, jobs)
        order = [("F", *f) for f in forwards[:warmup]]
        for i, b in enumerate(backwards):
            if warmup + i < jobs:
                order.append(("F", *forwards[warmup + i]))
            order.append(("B", *b))
        for i, b in enumerate(backwards):
            later = i + s  # the W of backward i goes right after backward i + s, if there is one
            where = order.index(("B", *backwards[later])) + 1 if later < jobs else len(order)
            while where < len(order) and order[where][0] == "W":
                where += 1
            order.insert(where, ("W", *b))
        schedule.append(order)
    return schedule
