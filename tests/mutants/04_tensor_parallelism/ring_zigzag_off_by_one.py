# replaces: zigzag_blocks
# wrong: rank r gets [r, 2N - r]: chunk 2N does not exist and chunk N is held twice
# must-lose: zigzag_blocks_balance
# must-keep: merge_partial_attention_matches_full, merge_partial_attention_empty_parts, ring_attention_rejects_bad_input
def zigzag_blocks(world_size):
    if type(world_size) is not int or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    return [[r, 2 * world_size - r] for r in range(world_size)]
