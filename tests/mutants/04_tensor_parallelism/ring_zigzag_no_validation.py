# replaces: zigzag_blocks
# wrong: no validation: 0 gives [], 2.0 a TypeError from range, True [[0, 1]]
# must-lose: ring_attention_rejects_bad_input
# must-keep: zigzag_blocks_balance, merge_partial_attention_matches_full, merge_partial_attention_empty_parts
def zigzag_blocks(world_size):
    return [[r, 2 * world_size - 1 - r] for r in range(world_size)]
