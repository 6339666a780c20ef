# replaces: assign_buckets
# wrong: fills the buckets from the end of the list (forward order) instead of in gradient-ready order
# must-lose: assign_buckets_examples, assign_buckets_matches_ddp
# must-keep: assign_buckets_rejects_bad_input
@@ -6,5 +6,5 @@
         raise ValueError(f"every size must be positive, got {list(param_nbytes)}")
     buckets, current, size, limit = [], [], 0, first_bucket_bytes
-    for index, nbytes in enumerate(param_nbytes):
+    for index, nbytes in reversed(list(enumerate(param_nbytes))):
         current.append(index)
         size += nbytes
