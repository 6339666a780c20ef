# replaces: zb_h1_schedule
# wrong: the cool-down's W's stop one short: each stage but the first never runs the last microbatch's W
# must-lose: zb_h1_schedule_bubble_and_memory
# must-keep: zb_h1_schedule_rejects_invalid, backward_input_then_weight, zero_bubble_runs_on_a_real_pipeline
def zb_h1_schedule(num_stages, num_microbatches):
    p, m = num_stages, num_microbatches
    for name, value in (("num_stages", p), ("num_microbatches", m)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    schedule = []
    for s in range(p):
        warmup = min(p - s - 1, m)
        ops = [("F", mb, 0) for mb in range(warmup)]
        for j in range(m):
            ops += [("F", warmup + j, 0)] if warmup + j < m else []
            ops.append(("B", j, 0))
            ops += [("W", j - s, 0)] if j >= s else []
        ops += [("W", mb, 0) for mb in range(max(m - s, 0), m - 1)]
        schedule.append(ops)
    return schedule
