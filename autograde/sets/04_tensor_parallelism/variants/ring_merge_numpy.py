# replaces: merge_partial_attention
# differs: numpy: the four tensors as arrays, np.logaddexp, np.exp under np.errstate, np.where for the empty rows;
#   the results back as tensors of the inputs' dtype
import numpy as np


def merge_partial_attention(o1, lse1, o2, lse2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("lse1", lse1), ("lse2", lse2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    o1_, lse1_, o2_, lse2_ = (t.detach().cpu().numpy() for t in (o1, lse1, o2, lse2))
    lse = np.logaddexp(lse1_, lse2_)
    with np.errstate(invalid="ignore"):
        w1, w2 = np.exp(lse1_ - lse), np.exp(lse2_ - lse)
    w1, w2 = np.where(np.isneginf(lse), 0.0, w1), np.where(np.isneginf(lse), 0.0, w2)
    o = w1[..., None] * o1_ + w2[..., None] * o2_
    return tuple(torch.from_numpy(np.ascontiguousarray(x)).to(o1.dtype) for x in (o, lse))
