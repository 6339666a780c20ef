# replaces: zigzag_blocks
# wrong: chunks dealt round-robin (rank r: r, r + N, r + 2N, ...), striped attention at chunk size: the later ranks
#   still get the later chunks of each round, so rank N-1 computes more causal pairs than rank 0
# must-lose: zigzag_blocks_balance
# must-keep: merge_partial_attention_matches_full, merge_partial_attention_empty_parts, ring_attention_rejects_bad_input
def zigzag_blocks(world_size, chunks_per_rank=2):
    if type(world_size) is not int or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    if type(chunks_per_rank) is not int or chunks_per_rank < 1 or chunks_per_rank % 2:
        raise ValueError(f"chunks_per_rank must be a positive even int, got {chunks_per_rank!r}")
    return [list(range(r, world_size * chunks_per_rank, world_size)) for r in range(world_size)]
