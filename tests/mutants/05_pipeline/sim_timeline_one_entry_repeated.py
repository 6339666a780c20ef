# replaces: simulate_pipeline
# wrong: right makespan, bubble and peaks, but its timeline repeats one op as many times as there are ops (issue 31:
#   the timeline's entries were never checked to be distinct)
# must-lose: simulate_pipeline_makespan_and_bubble
# must-keep: simulate_pipeline_peak_in_flight, simulate_pipeline_rejects_invalid
def simulate_pipeline(schedule, t_forward=1.0, t_backward=2.0):
    """Run `schedule` in simulated time: {"makespan", "bubble_fraction", "peak_in_flight", "timeline"}."""
    if not isinstance(schedule, (list, tuple)) or not schedule or not all(isinstance(ops, (list, tuple)) and ops
                                                                          for ops in schedule):
        raise ValueError("a schedule is a non-empty list of non-empty lists of (op, microbatch, chunk)")
    stages = [[tuple(op) for op in ops] for ops in schedule]
    if any(len(op) != 3 or op[0] not in ("F", "B") for ops in stages for op in ops):
        raise ValueError("every operation must be a tuple (op, microbatch, chunk) with op 'F' or 'B'")
    p = len(stages)
    m, v = (1 + max(op[i] for ops in stages for op in ops) for i in (1, 2))
    expected = sorted((op, mb, c) for op in "FB" for mb in range(m) for c in range(v))
    for s, ops in enumerate(stages):
        if sorted(ops) != expected:
            raise ValueError(f"stage {s} must run each of the {len(expected)} (op, microbatch, chunk) once")
    last, ended, free, position, timeline = p * v - 1, {}, [0.0] * p, [0] * p, []
    while any(position[s] < len(ops) for s, ops in enumerate(stages)):
        progressed = False
        for s, ops in enumerate(stages):
            while position[s] < len(ops):
                op, mb, chunk = ops[position[s]]
                k = chunk * p + s  # the model part
                needs = [("F", mb, k - 1)] if op == "F" and k > 0 else [] if op == "F" else [("F", mb, k)]
                needs += [("B", mb, k + 1)] if op == "B" and k < last else []
                if any(need not in ended for need in needs):
                    break
                start = max([free[s]] + [ended[need] for need in needs])
                free[s] = ended[op, mb, k] = start + (t_forward if op == "F" else t_backward) / v
                timeline.append((s, op, mb, chunk, start, free[s]))
                position[s] += 1
                progressed = True
        if not progressed:
            raise ValueError(f"deadlock: every stage with operations left waits (next ops at positions {position})")
    peaks = []
    for ops in stages:
        in_flight = peak = 0
        for op, _, _ in ops:
            in_flight += 1 if op == "F" else -1
            peak = max(peak, in_flight)
        peaks.append(peak)
    makespan = max(free)
    return {"makespan": makespan, "bubble_fraction": makespan / (m * (t_forward + t_backward)) - 1,
            "peak_in_flight": peaks, "timeline": timeline}


_honest_simulation = simulate_pipeline


def simulate_pipeline(schedule, t_forward=1.0, t_backward=2.0):
    """The honest simulation, with every timeline entry replaced by the first."""
    result = _honest_simulation(schedule, t_forward, t_backward)
    result["timeline"] = [result["timeline"][0]] * len(result["timeline"])
    return result
