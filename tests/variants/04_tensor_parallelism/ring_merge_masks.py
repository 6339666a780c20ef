# replaces: merge_partial_attention
# differs: torch.where on masks of the empty parts: a part with l_i = 0 gets weight 0 without computing exp(m_i - m),
#   the normalisation by l then a where for the rows with no key at all
def merge_partial_attention(o1, m1, l1, o2, m2, l2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("m1", m1), ("l1", l1), ("m2", m2), ("l2", l2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    m = torch.maximum(m1, m2)
    has1, has2 = l1 > 0, l2 > 0
    zero = torch.zeros_like(m)
    w1 = torch.where(has1, l1 * torch.exp(torch.where(has1, m1 - m, zero)), zero)
    w2 = torch.where(has2, l2 * torch.exp(torch.where(has2, m2 - m, zero)), zero)
    l = w1 + w2
    o = torch.where((l > 0)[..., None], (w1[..., None] * o1 + w2[..., None] * o2) / l.clamp_min(
        torch.finfo(l.dtype).tiny)[..., None], torch.zeros_like(o1))
    return o, m, l
