# replaces: simulate_pipeline
# differs: an event queue (heapq) of ops whose inputs are ready, keyed by their earliest start; peaks from the
#          timeline (forward starts and backward ends sorted by time); validation with collections.Counter
import heapq
from collections import Counter


def simulate_pipeline(schedule, t_forward=1.0, t_backward=2.0):
    try:
        stages = [[(str(op), int(mb), int(c)) for op, mb, c in ops] for ops in schedule]
    except (TypeError, ValueError) as error:
        raise ValueError(f"not a schedule of (op, microbatch, chunk): {error}") from None
    if not stages or not all(stages) or any(op not in "FB" or len(op) != 1 for ops in stages for op, _, _ in ops):
        raise ValueError("a schedule is a non-empty list of non-empty lists of ('F' or 'B', microbatch, chunk)")
    p = len(stages)
    m = max(mb for ops in stages for _, mb, _ in ops) + 1
    v = max(c for ops in stages for _, _, c in ops) + 1
    every = Counter((op, mb, c) for op in "FB" for mb in range(m) for c in range(v))
    for s, ops in enumerate(stages):
        if Counter(ops) != every:
            raise ValueError(f"stage {s} does not run every op exactly once")
    finish, position, busy_until, timeline, heap = {}, [0] * p, [0.0] * p, [], []

    def offer(s):  # push stage s's next op if its inputs are done
        if position[s] == len(stages[s]):
            return
        op, mb, c = stages[s][position[s]]
        part = c * p + s
        needs = [("F", mb, part - 1)] if op == "F" and part else []
        if op == "B":
            needs = [("F", mb, part)] + ([("B", mb, part + 1)] if part + 1 < p * v else [])
        if all(n in finish for n in needs):
            heapq.heappush(heap, (max([busy_until[s]] + [finish[n] for n in needs]), s))

    for s in range(p):
        offer(s)
    while heap:
        start, s = heapq.heappop(heap)
        op, mb, c = stages[s][position[s]]
        end = start + (t_forward if op == "F" else t_backward) / v
        finish[op, mb, c * p + s], busy_until[s] = end, end
        timeline.append((s, op, mb, c, start, end))
        position[s] += 1
        for other in range(p):
            if other == s or not any(entry[1] == other for entry in heap):
                offer(other)
    if len(timeline) < sum(map(len, stages)):
        raise ValueError("deadlock: the remaining operations wait for inputs that never come")
    peaks = []
    for s in range(p):
        events = sorted((start if op == "F" else end, op == "F") for st, op, _, _, start, end in timeline if st == s)
        count = peak = 0
        for _, is_forward in events:  # at equal times a backward's end comes before the next forward's start
            count += 1 if is_forward else -1
            peak = max(peak, count)
        peaks.append(peak)
    makespan = max(busy_until)
    return {"makespan": makespan, "bubble_fraction": makespan / (m * (t_forward + t_backward)) - 1,
            "peak_in_flight": peaks, "timeline": timeline}
