# replaces: zb_schedule
# differs: splits the backwards of its own Part 1 pipeline_schedule ("1f1b" or "interleaved"): a W follows the B
#   that comes s backwards after its own, the rest close the list; Part 1's ValueErrors pass through
def zb_schedule(num_stages, num_microbatches, num_chunks=1):
    """Zero bubble from Part 1's schedule: one list per stage of ("F" | "B" | "W", microbatch, chunk)."""
    if isinstance(num_chunks, bool) or not isinstance(num_chunks, int) or num_chunks < 1:
        raise ValueError(f"num_chunks must be a positive int, got {num_chunks!r}")
    kind = "1f1b" if num_chunks == 1 else "interleaved"
    schedule = []
    for s, ops in enumerate(pipeline_schedule(num_stages, num_microbatches, kind, num_chunks)):
        split, done = [], []
        for op, mb, chunk in ops:
            split.append((op, mb, chunk))
            if op == "B":
                done.append((mb, chunk))
                if len(done) > s:
                    split.append(("W", *done[-1 - s]))
        split += [("W", *unit) for unit in done[len(done) - min(s, len(done)):]]
        schedule.append(split)
    return schedule
