# replaces: find_stragglers
# wrong: accepts negative times
# must-lose: find_stragglers_rejects_bad_input
# must-keep: find_stragglers_values
@@ -14,5 +14,5 @@
         for step, seconds in enumerate(times):
             number = isinstance(seconds, (int, float)) and not isinstance(seconds, bool)
-            if not number or not 0 <= seconds < math.inf:
+            if not number or not -math.inf < seconds < math.inf:
                 raise ValueError(f"rank {rank}, step {step}: {seconds!r} is not a finite time >= 0")
     if warmup >= steps:
