# replaces: merge_partial_attention
# differs: the log-sum-exp form: lse_i = m_i + log l_i merged with torch.logaddexp; each part's weight is
#   exp(lse_i - lse), l = exp(lse - m); the rows with no key at all set by torch.where
def merge_partial_attention(o1, m1, l1, o2, m2, l2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("m1", m1), ("l1", l1), ("m2", m2), ("l2", l2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    lse1, lse2 = m1 + torch.log(l1), m2 + torch.log(l2)  # log 0 = -inf: an empty part
    lse = torch.logaddexp(lse1, lse2)
    empty = lse == -math.inf
    lse_safe = torch.where(empty, torch.zeros_like(lse), lse)
    a1, a2 = torch.exp(lse1 - lse_safe), torch.exp(lse2 - lse_safe)
    o = a1[..., None] * o1 + a2[..., None] * o2
    m = torch.maximum(m1, m2)
    l = torch.where(empty, torch.zeros_like(lse), torch.exp(lse - torch.where(empty, torch.zeros_like(m), m)))
    return o, m, l
