# replaces: assign_buckets
# wrong: closes the open bucket before a gradient that would take it past the limit, so no bucket goes past it (DDP's
#   may, by one gradient)
# must-lose: assign_buckets_examples, assign_buckets_matches_ddp
# must-keep: assign_buckets_rejects_bad_input
@@ -7,9 +7,9 @@
     buckets, current, size, limit = [], [], 0, first_bucket_bytes
     for index, nbytes in enumerate(param_nbytes):
+        if current and size + nbytes > limit:
+            buckets.append(current)
+            current, size, limit = [], 0, bucket_cap_bytes
         current.append(index)
         size += nbytes
-        if size >= limit:  # full: this bucket can be all-reduced as soon as its last gradient is ready
-            buckets.append(current)
-            current, size, limit = [], 0, bucket_cap_bytes
     if current:
         buckets.append(current)
