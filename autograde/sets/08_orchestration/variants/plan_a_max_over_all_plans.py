# replaces: elastic_plan
# differs: lists every plan (the divisors of global_batch) and takes the max by (ranks, -accumulation); returns a list
def elastic_plan(global_batch, world_size, max_micro_batch, max_accumulation):
    """The (ranks, micro_batch, accumulation) that keeps `global_batch` exactly on at most `world_size` ranks, within
    the limits: the most ranks, then the fewest accumulation steps; None if no plan keeps it."""
    args = [global_batch, world_size, max_micro_batch, max_accumulation]
    if any(isinstance(a, bool) or not isinstance(a, int) or a <= 0 for a in args):
        raise ValueError(f"every argument must be a positive int, got {args}")
    divisors = [d for d in range(1, global_batch + 1) if global_batch % d == 0]
    plans = [[r, global_batch // (r * a), a] for r in divisors if r <= world_size
             for a in divisors if a <= max_accumulation and (global_batch // r) % a == 0
             and global_batch // (r * a) <= max_micro_batch]
    return max(plans, key=lambda p: (p[0], -p[2])) if plans else None
