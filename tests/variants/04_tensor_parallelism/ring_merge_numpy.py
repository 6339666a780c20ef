# replaces: merge_partial_attention
# differs: numpy: the six tensors as arrays, np.maximum, np.exp and np.divide(..., where=l > 0), np.errstate; the
#   results back as tensors of the inputs' dtype
import numpy as np


def merge_partial_attention(o1, m1, l1, o2, m2, l2):
    if o1.dim() < 2:
        raise ValueError(f"o1 must have shape [..., q, d], got {tuple(o1.shape)}")
    if o2.shape != o1.shape:
        raise ValueError(f"o2 must have o1's shape {tuple(o1.shape)}, got {tuple(o2.shape)}")
    for name, t in [("m1", m1), ("l1", l1), ("m2", m2), ("l2", l2)]:
        if t.shape != o1.shape[:-1]:
            raise ValueError(f"{name} must have shape {tuple(o1.shape[:-1])}, got {tuple(t.shape)}")
    a = [t.detach().cpu().numpy() for t in (o1, m1, l1, o2, m2, l2)]
    o1_, m1_, l1_, o2_, m2_, l2_ = a
    m = np.maximum(m1_, m2_)
    with np.errstate(invalid="ignore", over="ignore"):
        m_safe = np.where(np.isneginf(m), 0.0, m).astype(m.dtype)
        w1, w2 = l1_ * np.exp(m1_ - m_safe), l2_ * np.exp(m2_ - m_safe)
    l = w1 + w2
    num = w1[..., None] * o1_ + w2[..., None] * o2_
    o = np.divide(num, l[..., None], out=np.zeros_like(num), where=l[..., None] > 0)
    return tuple(torch.from_numpy(np.ascontiguousarray(x)).to(o1.dtype) for x in (o, m, l))
