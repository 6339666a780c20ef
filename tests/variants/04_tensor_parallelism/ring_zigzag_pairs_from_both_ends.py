# replaces: zigzag_blocks
# differs: the chunk list zipped with its reverse (chunk r with chunk 2N-1-r), the first N pairs kept, as lists
def zigzag_blocks(world_size):
    if type(world_size) is not int:
        raise ValueError(f"world_size must be an int, got {type(world_size).__name__}")
    if world_size < 1:
        raise ValueError(f"world_size must be positive, got {world_size}")
    chunks = list(range(2 * world_size))
    return [list(pair) for pair in zip(chunks, reversed(chunks))][:world_size]
