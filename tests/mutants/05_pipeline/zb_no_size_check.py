# replaces: zb_h1_schedule
# wrong: no ValueError: zb_h1_schedule(0, 4) returns [] and a float size fails with a TypeError
# must-lose: zb_h1_schedule_rejects_invalid
# must-keep: zb_h1_schedule_bubble_and_memory, backward_input_then_weight, zero_bubble_runs_on_a_real_pipeline
def zb_h1_schedule(num_stages, num_microbatches):
    p, m = num_stages, num_microbatches
    schedule = []
    for s in range(p):
        warmup = min(p - s - 1, m)
        ops = [("F", mb, 0) for mb in range(warmup)]
        for j in range(m):
            ops += [("F", warmup + j, 0)] if warmup + j < m else []
            ops.append(("B", j, 0))
            ops += [("W", j - s, 0)] if j >= s else []
        ops += [("W", mb, 0) for mb in range(max(m - s, 0), m)]
        schedule.append(ops)
    return schedule
