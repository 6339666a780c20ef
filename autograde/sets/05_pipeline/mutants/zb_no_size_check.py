# replaces: zb_schedule
# wrong: no ValueError: zb_schedule(0, 4) returns [], a float size fails with a TypeError, and m not a multiple of p
#   with chunks gives a schedule
# must-lose: zb_schedule_rejects_invalid
# must-keep: zb_schedule_one_chunk, zb_schedule_interleaved, backward_input_then_weight,
#   zero_bubble_runs_on_a_real_pipeline
def zb_schedule(num_stages, num_microbatches, num_chunks=1):
    """Zero bubble (Qi et al. 2023): 1F1B (v = 1, ZB-H1) or interleaved 1F1B with each backward split into B and W:
    one list per stage of ("F" | "B" | "W", microbatch, chunk)."""
    p, m, v = num_stages, num_microbatches, num_chunks

    def unit(j, forward):  # Part 1's j-th forward or backward of a stage: (microbatch, chunk)
        chunk = (j // p) % v
        return (j // (p * v)) * p + j % p, chunk if forward else v - 1 - chunk

    schedule = []
    for s in range(p):
        warmup = min(p - s - 1, m) if v == 1 else min(2 * (p - s - 1) + (v - 1) * p, m * v)
        ops = [("F", *unit(j, True)) for j in range(warmup)]
        for j in range(m * v):
            ops += [("F", *unit(warmup + j, True))] if warmup + j < m * v else []
            ops.append(("B", *unit(j, False)))
            ops += [("W", *unit(j - s, False))] if j >= s else []
        schedule.append(ops + [("W", *unit(j, False)) for j in range(max(m * v - s, 0), m * v)])
    return schedule
