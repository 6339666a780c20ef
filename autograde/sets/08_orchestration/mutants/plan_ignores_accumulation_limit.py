# replaces: elastic_plan
# wrong: lets accumulation exceed max_accumulation
# must-lose: elastic_plan_impossible
# must-keep: elastic_plan_rejects_bad_input
@@ -10,5 +10,5 @@
             continue
         per_rank = global_batch // ranks
-        for accumulation in range(1, max_accumulation + 1):  # then the fewest accumulation steps
+        for accumulation in range(1, per_rank + 1):
             if per_rank % accumulation == 0 and per_rank // accumulation <= max_micro_batch:
                 return ranks, per_rank // accumulation, accumulation
