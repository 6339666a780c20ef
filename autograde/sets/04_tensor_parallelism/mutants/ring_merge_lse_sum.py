# replaces: merge_partial_attention
# wrong: lse = lse1 + lse2 (the logs added, where the sums they stand for must be): o right, lse wrong
# must-lose: merge_partial_attention_matches_full
# must-keep: ring_attention_rejects_bad_input, zigzag_blocks_balance
def merge_partial_attention(o1, lse1, o2, lse2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("lse1", lse1), ("lse2", lse2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    lse = torch.logaddexp(lse1, lse2)
    lse_safe = torch.where(lse == -math.inf, torch.zeros_like(lse), lse)
    w1, w2 = torch.exp(lse1 - lse_safe), torch.exp(lse2 - lse_safe)
    return w1[..., None] * o1 + w2[..., None] * o2, lse1 + lse2
