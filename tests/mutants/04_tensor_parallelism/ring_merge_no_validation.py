# replaces: merge_partial_attention
# wrong: no validation: shapes that do not fit are broadcast or fail with another error
# must-lose: ring_attention_rejects_bad_input
# must-keep: merge_partial_attention_matches_full, merge_partial_attention_empty_parts, zigzag_blocks_balance
def merge_partial_attention(o1, m1, l1, o2, m2, l2):
    m = torch.maximum(m1, m2)
    m_safe = torch.where(m == -math.inf, torch.zeros_like(m), m)
    w1, w2 = l1 * torch.exp(m1 - m_safe), l2 * torch.exp(m2 - m_safe)
    l = w1 + w2
    o = (w1[..., None] * o1 + w2[..., None] * o2) / torch.where(l > 0, l, torch.ones_like(l))[..., None]
    return o, m, l
