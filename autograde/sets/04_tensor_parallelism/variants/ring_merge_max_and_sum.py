# replaces: merge_partial_attention
# differs: the lesson's (m, l) rule read with m_i = lse_i and l_i = 1 (a part's lse is its own max with a sum of 1):
#   m = max, w_i = exp(lse_i - m), o divided by w1 + w2, lse = m + log(w1 + w2); the empty rows set by torch.where
def merge_partial_attention(o1, lse1, o2, lse2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("lse1", lse1), ("lse2", lse2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    m = torch.maximum(lse1, lse2)
    empty = m == -math.inf
    m_safe = torch.where(empty, torch.zeros_like(m), m)
    w1, w2 = torch.exp(lse1 - m_safe), torch.exp(lse2 - m_safe)
    l = w1 + w2
    o = (w1[..., None] * o1 + w2[..., None] * o2) / torch.where(empty, torch.ones_like(l), l)[..., None]
    return o, torch.where(empty, m, m + torch.log(torch.where(empty, torch.ones_like(l), l)))
