# replaces: pipeline_schedule
# differs: GPipe runs its backwards last microbatch first (the issue accepts either order); 1F1B and interleaved built
#          from explicit phase lists with itertools, ops as tuples built by a helper
import itertools


def pipeline_schedule(num_stages, num_microbatches, kind, num_chunks=1):
    p, m, v = num_stages, num_microbatches, num_chunks
    if not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in (p, m, v)):
        raise ValueError(f"sizes must be positive ints: {p}, {m}, {v}")
    if kind not in {"gpipe", "1f1b", "interleaved"}:
        raise ValueError(f"unknown kind {kind}")
    if (kind == "interleaved") != (v > 1):
        raise ValueError("chunks > 1 exactly for interleaved")
    if kind == "interleaved" and m % p != 0:
        raise ValueError("interleaved: num_microbatches must be a multiple of num_stages")
    op = lambda name, mb, chunk: (name, mb, chunk)  # noqa: E731
    if kind == "gpipe":
        return [[op("F", i, 0) for i in range(m)] + [op("B", i, 0) for i in reversed(range(m))] for _ in range(p)]
    units = [(g * p + i, c) for g in range(m // p if kind == "interleaved" else 1)
             for c in range(v) for i in range(p if kind == "interleaved" else m)]
    forwards = [op("F", mb, c) for mb, c in units]
    backwards = [op("B", mb, v - 1 - c) for mb, c in units]
    schedule = []
    for s in range(p):
        warm = min(p - s - 1, m) if kind == "1f1b" else min(2 * (p - s - 1) + (v - 1) * p, m * v)
        steady = list(itertools.chain.from_iterable(zip(forwards[warm:], backwards)))
        schedule.append(forwards[:warm] + steady + backwards[len(forwards) - warm:])
    return schedule
