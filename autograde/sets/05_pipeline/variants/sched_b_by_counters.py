# replaces: pipeline_schedule
# differs: one loop per stage driven by counters of forwards and backwards done (no closed-form index of the j-th
#          unit), validation through a helper that raises, kind dispatch through a dict of warm-up functions
def _check(condition, message):
    if not condition:
        raise ValueError(message)


def pipeline_schedule(num_stages, num_microbatches, kind, num_chunks=1):
    p, m, v = num_stages, num_microbatches, num_chunks
    for value in (p, m, v):
        _check(type(value) is int and value >= 1, f"expected a positive int, got {value!r}")
    warmups = {"gpipe": lambda s: m, "1f1b": lambda s: min(p - s - 1, m),
               "interleaved": lambda s: min(2 * (p - s - 1) + (v - 1) * p, m * v)}
    _check(kind in warmups, f"kind {kind!r} is not one of {sorted(warmups)}")
    _check(v == 1 if kind != "interleaved" else v >= 2, f"{kind} with {v} chunks")
    _check(kind != "interleaved" or m % p == 0, f"{m} microbatches on {p} stages: not a multiple")
    group = p if kind == "interleaved" else m

    def nth(j):  # the j-th (microbatch, chunk) a stage handles, forward order
        return (j // (group * v)) * group + j % group, (j // group) % v

    schedule = []
    for s in range(p):
        ops, forwards, backwards, total = [], 0, 0, m * v
        while backwards < total:
            if forwards < total and (forwards < warmups[kind](s) or forwards == backwards + warmups[kind](s)):
                mb, c = nth(forwards)
                ops.append(("F", mb, c))
                forwards += 1
            else:
                mb, c = nth(backwards)
                ops.append(("B", mb, v - 1 - c))
                backwards += 1
        schedule.append(ops)
    return schedule
