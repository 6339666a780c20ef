# replaces: merge_partial_attention
# wrong: rescales o1 and l1 in place (the running state updated where it lies): the caller's inputs change
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
    w2 = l2 * torch.exp(m2 - m_safe)
    l1.mul_(torch.exp(m1 - m_safe))
    o1.mul_(l1[..., None]).add_(w2[..., None] * o2)
    l1.add_(w2)
    o1.div_(torch.where(l1 > 0, l1, torch.ones_like(l1))[..., None])
    return o1, m, l1
