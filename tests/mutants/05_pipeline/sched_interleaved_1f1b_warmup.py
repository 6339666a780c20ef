# replaces: pipeline_schedule
# wrong: interleaved with 1F1B's warm-up, p - s - 1, instead of Megatron's 2(p - s - 1) + (v - 1)p
# must-lose: pipeline_schedule_interleaved
# must-keep: pipeline_schedule_gpipe_and_1f1b, pipeline_schedule_rejects_invalid, schedules_run_on_a_real_pipeline
def pipeline_schedule(num_stages, num_microbatches, kind, num_chunks=1):
    """One list per stage of (op, microbatch, chunk) tuples: GPipe, 1F1B or interleaved 1F1B (Megatron-LM §2.2)."""
    p, m, v = num_stages, num_microbatches, num_chunks
    for name, value in (("num_stages", p), ("num_microbatches", m), ("num_chunks", v)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if kind not in ("gpipe", "1f1b", "interleaved"):
        raise ValueError(f"kind must be 'gpipe', '1f1b' or 'interleaved', got {kind!r}")
    if kind != "interleaved" and v != 1:
        raise ValueError(f"{kind} runs one chunk per stage, got num_chunks={v}")
    if kind == "interleaved" and (v < 2 or m % p):
        raise ValueError(f"interleaved needs num_chunks >= 2 (got {v}) and num_microbatches a multiple of "
                         f"num_stages (got {m} and {p})")
    if kind == "gpipe":
        return [[("F", mb, 0) for mb in range(m)] + [("B", mb, 0) for mb in range(m)] for _ in range(p)]

    def unit(j, forward):  # the j-th forward or backward of a stage: (microbatch, chunk)
        chunk = (j // p) % v
        return (j // (p * v)) * p + j % p, chunk if forward else v - 1 - chunk

    schedule = []
    for s in range(p):
        warmup = min(p - s - 1, m) if kind == "1f1b" else min(p - s - 1, m * v)
        ops = [("F", *unit(j, True)) for j in range(warmup)]
        for j in range(m * v - warmup):
            ops += [("F", *unit(warmup + j, True)), ("B", *unit(j, False))]
        ops += [("B", *unit(j, False)) for j in range(m * v - warmup, m * v)]
        schedule.append(ops)
    return schedule
