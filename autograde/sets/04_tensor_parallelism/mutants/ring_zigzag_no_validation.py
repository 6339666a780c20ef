# replaces: zigzag_blocks
# wrong: chunks_per_rank not validated: 3 gives an unbalanced layout with a chunk missing, 0 an empty one, 4.0 a
#   TypeError from range (world_size is checked)
# must-lose: ring_attention_rejects_bad_input
# must-keep: zigzag_blocks_balance, merge_partial_attention_matches_full, merge_partial_attention_empty_parts
def zigzag_blocks(world_size, chunks_per_rank=2):
    if type(world_size) is not int or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    last = world_size * chunks_per_rank - 1
    pairs = range(world_size * chunks_per_rank // 2)
    return [sorted(c for i in pairs[r::world_size] for c in (i, last - i)) for r in range(world_size)]
