# replaces: zb_schedule
# wrong: with v chunks stage s delays its W's by s v backwards (s microbatches' worth of chunks, where s backwards of
#   one chunk each fill the idle slots): more than interleaved 1F1B's first-stage peak kept
# must-lose: zb_schedule_interleaved
# must-keep: zb_schedule_one_chunk, zb_schedule_rejects_invalid, backward_input_then_weight,
#   zero_bubble_runs_on_a_real_pipeline
def zb_schedule(num_stages, num_microbatches, num_chunks=1):
    """Zero bubble (Qi et al. 2023): 1F1B (v = 1, ZB-H1) or interleaved 1F1B with each backward split into B and W:
    one list per stage of ("F" | "B" | "W", microbatch, chunk)."""
    p, m, v = num_stages, num_microbatches, num_chunks
    for name, value in (("num_stages", p), ("num_microbatches", m), ("num_chunks", v)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if v > 1 and m % p:
        raise ValueError(f"with {v} chunks num_microbatches must be a multiple of num_stages, got {m} and {p}")

    def unit(j, forward):  # Part 1's j-th forward or backward of a stage: (microbatch, chunk)
        chunk = (j // p) % v
        return (j // (p * v)) * p + j % p, chunk if forward else v - 1 - chunk

    schedule = []
    for s in range(p):
        d = s * v
        warmup = min(p - s - 1, m) if v == 1 else min(2 * (p - s - 1) + (v - 1) * p, m * v)
        ops = [("F", *unit(j, True)) for j in range(warmup)]
        for j in range(m * v):
            ops += [("F", *unit(warmup + j, True))] if warmup + j < m * v else []
            ops.append(("B", *unit(j, False)))
            ops += [("W", *unit(j - d, False))] if j >= d else []
        schedule.append(ops + [("W", *unit(j, False)) for j in range(max(m * v - d, 0), m * v)])
    return schedule
