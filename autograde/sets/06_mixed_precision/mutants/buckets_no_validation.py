# replaces: assign_buckets
# wrong: accepts limits and sizes of 0 or below (no ValueError)
# must-lose: assign_buckets_rejects_bad_input
# must-keep: assign_buckets_examples, assign_buckets_matches_ddp
@@ -1,8 +1,4 @@
 def assign_buckets(param_nbytes, bucket_cap_bytes=25 * 2**20, first_bucket_bytes=2**20):
     """DDP's buckets (Li et al. 2020, §3.2.3): lists of indices into `param_nbytes`, given in gradient-ready order."""
-    if not (bucket_cap_bytes > 0 and first_bucket_bytes > 0):
-        raise ValueError(f"bucket limits must be positive, got {bucket_cap_bytes} and {first_bucket_bytes}")
-    if any(not nbytes > 0 for nbytes in param_nbytes):
-        raise ValueError(f"every size must be positive, got {list(param_nbytes)}")
     buckets, current, size, limit = [], [], 0, first_bucket_bytes
     for index, nbytes in enumerate(param_nbytes):
