# replaces: vocab_parallel_cross_entropy
# wrong: gathers the full [tokens, V] logits on every rank and takes F.cross_entropy of them: the right numbers,
#   O(tokens*V) bytes
# must-lose: vocab_parallel_ce_moves_per_token_bytes
# must-keep: vocab_parallel_ce_matches_cross_entropy, vocab_parallel_ce_uneven_shards,
#   vocab_parallel_ce_ignore_index, vocab_parallel_ce_large_logits
def vocab_parallel_cross_entropy(logits_shard, target, group=None, ignore_index=-100):
    t, r = dist.get_world_size(group), dist.get_rank(group)
    widths = [torch.zeros((), dtype=torch.long) for _ in range(t)]
    dist.all_gather(widths, torch.tensor(logits_shard.shape[-1]), group=group)
    start, width = int(sum(widths[:r])), logits_shard.shape[-1]

    class GatherVocab(torch.autograd.Function):
        @staticmethod
        def forward(ctx, shard):
            widest = int(max(widths))  # all_gather wants equal sizes: pad every shard to the widest
            parts = [torch.empty(shard.shape[0], widest) for _ in widths]
            dist.all_gather(parts, F.pad(shard, (0, widest - width)).contiguous(), group=group)
            return torch.cat([part[:, :int(w)] for part, w in zip(parts, widths)], dim=-1)

        @staticmethod
        def backward(ctx, grad):
            return grad[:, start:start + width]  # every rank computed the same full loss: keep our columns

    return F.cross_entropy(GatherVocab.apply(logits_shard), target, ignore_index=ignore_index)
