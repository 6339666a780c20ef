# replaces: merge_partial_attention
# wrong: not stable: each part's sum of exponentials taken as exp(lse_i), added and logged: right while the lse are
#   small, inf / inf = NaN once they are in the hundreds (exp(800) overflows float64)
# must-lose: merge_partial_attention_matches_full
# must-keep: merge_partial_attention_empty_parts, ring_attention_rejects_bad_input, zigzag_blocks_balance
def merge_partial_attention(o1, lse1, o2, lse2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("lse1", lse1), ("lse2", lse2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    s1, s2 = torch.exp(lse1), torch.exp(lse2)  # each part's sum of e^score
    s = s1 + s2
    o = (s1[..., None] * o1 + s2[..., None] * o2) / torch.where(s > 0, s, torch.ones_like(s))[..., None]
    return o, torch.log(s)
