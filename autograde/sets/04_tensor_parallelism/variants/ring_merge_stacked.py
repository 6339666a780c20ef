# replaces: merge_partial_attention
# differs: stacks the two parts on a new leading axis and reduces over it (torch.logsumexp, then each part's weight
#   exp(lse_i - lse) as a merge of any number of parts would); NaN weights of empty rows zeroed by nan_to_num
def merge_partial_attention(o1, lse1, o2, lse2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("lse1", lse1), ("lse2", lse2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    o_s, lse_s = torch.stack([o1, o2]), torch.stack([lse1, lse2])
    lse = torch.logsumexp(lse_s, dim=0)
    weights = torch.exp(lse_s - lse).nan_to_num(nan=0.0)
    return (weights[..., None] * o_s).sum(0), lse
