# replaces: zigzag_blocks
# differs: the chunk list zipped with its reverse, the first cN/2 pairs kept and cut into consecutive runs of c/2
#   pairs (rank 0 the first run: pairs 0..c/2-1), as tuples; two messages for world_size
def zigzag_blocks(world_size, chunks_per_rank=2):
    if type(world_size) is not int:
        raise ValueError(f"world_size must be an int, got {type(world_size).__name__}")
    if world_size < 1:
        raise ValueError(f"world_size must be positive, got {world_size}")
    if type(chunks_per_rank) is not int or chunks_per_rank <= 0 or chunks_per_rank % 2 == 1:
        raise ValueError(f"chunks_per_rank must be a positive even int, got {chunks_per_rank!r}")
    chunks = list(range(world_size * chunks_per_rank))
    pairs = list(zip(chunks, reversed(chunks)))[:len(chunks) // 2]
    half = chunks_per_rank // 2
    return [tuple(c for pair in pairs[r * half:(r + 1) * half] for c in pair) for r in range(world_size)]
