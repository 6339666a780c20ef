# replaces: zigzag_blocks
# wrong: chunk i paired with chunk cN - i, not cN - 1 - i: chunk cN does not exist and the middle chunk is held twice
# must-lose: zigzag_blocks_balance
# must-keep: merge_partial_attention_matches_full, merge_partial_attention_empty_parts, ring_attention_rejects_bad_input
def zigzag_blocks(world_size, chunks_per_rank=2):
    if type(world_size) is not int or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    if type(chunks_per_rank) is not int or chunks_per_rank < 1 or chunks_per_rank % 2:
        raise ValueError(f"chunks_per_rank must be a positive even int, got {chunks_per_rank!r}")
    n = world_size * chunks_per_rank
    pairs = range(n // 2)
    return [sorted(c for i in pairs[r::world_size] for c in (i, n - i)) for r in range(world_size)]
