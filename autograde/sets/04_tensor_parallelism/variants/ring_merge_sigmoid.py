# replaces: merge_partial_attention
# differs: PyTorch's context-parallel form (torch/distributed/tensor/experimental/_context_parallel/_attention.py):
#   o = o1 - sigmoid(lse2 - lse1) (o1 - o2), lse = lse1 - logsigmoid(lse1 - lse2); the rows where both are -inf
#   (a NaN difference) given o = 0 and lse = -inf by masks
def merge_partial_attention(o1, lse1, o2, lse2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("lse1", lse1), ("lse2", lse2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    diff = lse2 - lse1
    both_empty = diff.isnan()
    diff = torch.where(both_empty, torch.zeros_like(diff), diff)
    o = o1 - torch.sigmoid(diff)[..., None] * (o1 - o2)
    lse = torch.where(lse1 == -math.inf, lse2, lse1 - torch.nn.functional.logsigmoid(-diff))
    return torch.where(both_empty[..., None], torch.zeros_like(o), o), torch.where(both_empty, lse1, lse)
