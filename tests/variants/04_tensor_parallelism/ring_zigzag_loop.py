# replaces: zigzag_blocks
# differs: a loop that appends, the late chunk counted from the end (last - r); isinstance with a bool excluded
def zigzag_blocks(world_size):
    if not isinstance(world_size, int) or isinstance(world_size, bool) or world_size <= 0:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    blocks, last = [], 2 * world_size - 1
    for r in range(world_size):
        blocks.append([r, last - r])
    return blocks
