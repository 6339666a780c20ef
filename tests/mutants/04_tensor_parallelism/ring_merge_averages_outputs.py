# replaces: merge_partial_attention
# wrong: o is the mean of o1 and o2 (m and l right): the parts' weights ignored
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
    m_safe = torch.where(m == -math.inf, torch.zeros_like(m), m)
    l = l1 * torch.exp(m1 - m_safe) + l2 * torch.exp(m2 - m_safe)
    return (o1 + o2) / 2, m, l
