# replaces: zigzag_blocks
# differs: no mirror pairs: the cN chunks dealt out in a snake (0..N-1, then N-1..0, ...), which balances the causal
#   pairs when each rank gets an even number of rounds; numpy arrays turned into lists of ints
import numpy as np


def zigzag_blocks(world_size, chunks_per_rank=2):
    if type(world_size) is not int or world_size < 1:
        raise ValueError(f"world_size must be a positive int, got {world_size!r}")
    if type(chunks_per_rank) is not int or chunks_per_rank < 2 or chunks_per_rank % 2:
        raise ValueError(f"chunks_per_rank must be an even int >= 2, got {chunks_per_rank!r}")
    rounds = np.arange(world_size * chunks_per_rank).reshape(chunks_per_rank, world_size)
    rounds[1::2] = rounds[1::2, ::-1]  # every other round backwards
    return [[int(c) for c in rounds[:, r]] for r in range(world_size)]
