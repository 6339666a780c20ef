# replaces: assign_buckets
# wrong: calls DDP's own bucketing function, the reference the checks compare with (it gives the same buckets)
# must-lose: assign_buckets_examples, assign_buckets_matches_ddp
import torch
import torch.distributed as dist


def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
    """DDP's buckets, from DDP."""
    tensors = [torch.empty(nbytes, dtype=torch.uint8) for nbytes in param_nbytes]
    indices, _ = dist._compute_bucket_assignment_by_size(tensors, [first_bucket_bytes, bucket_cap_bytes])
    return [list(bucket) for bucket in indices]
