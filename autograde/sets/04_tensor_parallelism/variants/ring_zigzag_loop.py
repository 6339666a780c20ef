# replaces: zigzag_blocks
# differs: a loop that appends: rank r's k-th pair is chunk k*N + r with its mirror from the end; isinstance with a
#   bool excluded; the chunks left in pair order (early, late, early, late), not sorted
def zigzag_blocks(world_size, chunks_per_rank=2):
    if not isinstance(world_size, int) or isinstance(world_size, bool) or world_size <= 0:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    if not isinstance(chunks_per_rank, int) or isinstance(chunks_per_rank, bool) or chunks_per_rank <= 0 \
            or chunks_per_rank % 2 != 0:
        raise ValueError(f"chunks_per_rank must be a positive even int, got {chunks_per_rank!r}")
    blocks, last = [], world_size * chunks_per_rank - 1
    for r in range(world_size):
        mine = []
        for k in range(chunks_per_rank // 2):
            mine += [k * world_size + r, last - (k * world_size + r)]
        blocks.append(mine)
    return blocks
