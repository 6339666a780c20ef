# replaces: pipeline_schedule
# wrong: interleaved as if chunk c of stage s were model part s v + c: each microbatch's chunks back to back, depth first (with the real placement, part c p + s, stages wait far more: the closed forms fail)
# must-lose: pipeline_schedule_interleaved
# must-keep: pipeline_schedule_gpipe_and_1f1b, pipeline_schedule_rejects_invalid
@@ -16,6 +16,6 @@

     def unit(j, forward):  # the j-th forward or backward of a stage: (microbatch, chunk)
-        chunk = (j // p) % v
-        return (j // (p * v)) * p + j % p, chunk if forward else v - 1 - chunk
+        chunk = j % v
+        return j // v, chunk if forward else v - 1 - chunk

     schedule = []
