# replaces: merge_partial_attention
# differs: returns the list [o, m, l] where the statement shows (o, m, l): every set accepts a list for a tuple
def merge_partial_attention(o1, m1, l1, o2, m2, l2):
    """Attention over the union of two disjoint key sets from each set's (o, m, l): the online-softmax rule."""
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("m1", m1), ("l1", l1), ("m2", m2), ("l2", l2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    m = torch.maximum(m1, m2)
    m_safe = torch.where(m == -math.inf, torch.zeros_like(m), m)  # no key at all: -inf - (-inf) would be NaN
    w1, w2 = l1 * torch.exp(m1 - m_safe), l2 * torch.exp(m2 - m_safe)  # an empty part: exp(-inf) = 0
    l = w1 + w2
    o = (w1[..., None] * o1 + w2[..., None] * o2) / torch.where(l > 0, l, torch.ones_like(l))[..., None]
    return [o, m, l]  # a list: the course judges the three values, not the container
