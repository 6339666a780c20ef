# replaces: vocab_parallel_cross_entropy
# wrong: returns a zero loss computed from its own shard: nothing crosses ranks, so the bytes are few (issue 31: it
#   took the bytes cell's points when that cell did not check the loss)
# must-zero: vocab_parallel_ce_matches_cross_entropy, vocab_parallel_ce_moves_per_token_bytes
def vocab_parallel_cross_entropy(logits_shard, target, group=None, ignore_index=-100):
    """A loss that needs no communication, and is wrong."""
    return logits_shard.sum() * 0
