# replaces: zb_h1_schedule
# differs: each stage's list is the reference's 1F1B with B for its backwards (built by the F's and B's positions),
#   then each W inserted right after the B that comes s backwards later (or appended), by list surgery
def zb_h1_schedule(num_stages, num_microbatches):
    """ZB-H1 (Qi et al. 2023, §3.1): one list per stage of ("F" | "B" | "W", microbatch, 0)."""
    if not (type(num_stages) is int and type(num_microbatches) is int):
        raise ValueError(f"sizes must be ints, got {num_stages!r} and {num_microbatches!r}")
    if num_stages < 1 or num_microbatches < 1:
        raise ValueError(f"sizes must be positive, got {num_stages} stages and {num_microbatches} microbatches")
    p, m = num_stages, num_microbatches
    schedule = []
    for s in range(p):
        warmup = min(p - s - 1, m)
        order = [("F", i, 0) for i in range(warmup)]
        for i in range(m):
            if warmup + i < m:
                order.append(("F", warmup + i, 0))
            order.append(("B", i, 0))
        for mb in range(m):
            later = mb + s  # the W of mb goes right after the B of microbatch mb + s, if there is one
            where = order.index(("B", later, 0)) + 1 if later < m else len(order)
            while where < len(order) and order[where][0] == "W":
                where += 1
            order.insert(where, ("W", mb, 0))
        schedule.append(order)
    return schedule
