# replaces: merge_partial_attention
# wrong: no rescaling by exp(m_i - m): each part weighted by its own l_i, as if both had the same row max
# must-lose: merge_partial_attention_matches_full
# must-keep: ring_attention_rejects_bad_input, zigzag_blocks_balance
def merge_partial_attention(o1, m1, l1, o2, m2, l2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("m1", m1), ("l1", l1), ("m2", m2), ("l2", l2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    m = torch.maximum(m1, m2)
    l = l1 + l2
    o = (l1[..., None] * o1 + l2[..., None] * o2) / torch.where(l > 0, l, torch.ones_like(l))[..., None]
    return o, m, l
