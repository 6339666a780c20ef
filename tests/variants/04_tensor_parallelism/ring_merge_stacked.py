# replaces: merge_partial_attention
# differs: stacks the two parts on a new leading axis and reduces over it (amax, sum), as a merge of any number of
#   parts would; an empty row's max replaced by 0 before the exp
def merge_partial_attention(o1, m1, l1, o2, m2, l2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("m1", m1), ("l1", l1), ("m2", m2), ("l2", l2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    o_s, m_s, l_s = torch.stack([o1, o2]), torch.stack([m1, m2]), torch.stack([l1, l2])
    m = m_s.amax(0)
    w = l_s * torch.exp(m_s - m.nan_to_num(neginf=0.0).masked_fill(m == -math.inf, 0.0))
    l = w.sum(0)
    o = (w[..., None] * o_s).sum(0) / l.masked_fill(l == 0, 1.0)[..., None]
    return o, m, l
