# replaces: elastic_plan
# wrong: does not compile (a missing colon), so elastic_plan is never defined
# must-zero: elastic_plan_values, elastic_plan_impossible, elastic_plan_rejects_bad_input
# must-keep: rendezvous_assigns_ranks, preemption_finishes_step_and_saves, find_stragglers_values
def elastic_plan(global_batch, world_size, max_micro_batch, max_accumulation)
    return None
