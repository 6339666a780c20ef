# replaces: find_stragglers
# wrong: its errors name neither the rank nor the step
# must-lose: find_stragglers_rejects_bad_input
# must-keep: find_stragglers_values
@@ -11,9 +11,9 @@
     for rank, times in enumerate(compute_times):
         if len(times) != steps:
-            raise ValueError(f"rank {rank} has {len(times)} compute times, rank 0 has {steps}: ragged lists")
+            raise ValueError("ragged lists")
         for step, seconds in enumerate(times):
             number = isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
             if not number or not 0 <= seconds < math.inf:
-                raise ValueError(f"rank {rank}, step {step}: {seconds!r} is not a finite time >= 0")
+                raise ValueError(f"{seconds!r} is not a finite time >= 0")
     if warmup >= steps:
         raise ValueError(f"warmup = {warmup} leaves none of the {steps} steps")
