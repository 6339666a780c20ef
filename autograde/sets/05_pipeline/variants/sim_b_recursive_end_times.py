# replaces: simulate_pipeline
# differs: every op's end time from a memoised recursion over its two predecessors (the previous op of its stage and
#          its input), a deadlock found as a cycle in that recursion; the timeline sorted by start time
import sys


def simulate_pipeline(schedule, t_forward=1.0, t_backward=2.0):
    if not isinstance(schedule, list) or not schedule:
        raise ValueError("schedule must be a non-empty list of stages")
    for ops in schedule:
        if not isinstance(ops, (list, tuple)) or not ops:
            raise ValueError("each stage must be a non-empty list")
        for entry in ops:
            if not isinstance(entry, (list, tuple)) or len(entry) != 3 or entry[0] not in ("F", "B"):
                raise ValueError(f"bad operation {entry!r}")
    p = len(schedule)
    m = 1 + max(entry[1] for ops in schedule for entry in ops)
    v = 1 + max(entry[2] for ops in schedule for entry in ops)
    where = {}  # (op, mb, part) -> (stage, index)
    for s, ops in enumerate(schedule):
        if len(ops) != 2 * m * v or len({tuple(e) for e in ops}) != 2 * m * v:
            raise ValueError(f"stage {s} must run each of the {2 * m * v} operations exactly once")
        for i, (op, mb, c) in enumerate(ops):
            where[op, mb, c * p + s] = (s, i)
    end, visiting = {}, set()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(where) + 100))

    def finish(s, i):
        if (s, i) in end:
            return end[s, i]
        if (s, i) in visiting:
            raise ValueError("deadlock: the schedule's operations wait for each other in a cycle")
        visiting.add((s, i))
        op, mb, c = schedule[s][i]
        part = c * p + s
        inputs = [("F", mb, part - 1)] if op == "F" and part > 0 else []
        if op == "B":
            inputs = [("F", mb, part)] + ([("B", mb, part + 1)] if part < p * v - 1 else [])
        start = max([finish(s, i - 1) if i else 0.0] + [finish(*where[x]) for x in inputs])
        end[s, i] = start + (t_forward if op == "F" else t_backward) / v
        visiting.discard((s, i))
        return end[s, i]

    timeline = []
    for s, ops in enumerate(schedule):
        for i, (op, mb, c) in enumerate(ops):
            stop = finish(s, i)
            timeline.append((s, op, mb, c, stop - (t_forward if op == "F" else t_backward) / v, stop))
    timeline.sort(key=lambda entry: entry[4])
    peaks = []
    for ops in schedule:
        running = [sum(1 if e[0] == "F" else -1 for e in ops[:i + 1]) for i in range(len(ops))]
        peaks.append(max(running))
    makespan = max(end.values())
    return {"makespan": makespan, "bubble_fraction": makespan / (m * (t_forward + t_backward)) - 1,
            "peak_in_flight": peaks, "timeline": timeline}
