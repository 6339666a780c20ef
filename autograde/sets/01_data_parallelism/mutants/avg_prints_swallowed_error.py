# replaces: average_gradients
# wrong: does not skip frozen parameters: all_reduce(None) raises, and it catches the error and prints its traceback
#        on stderr. The numbers come out right, but a traceback is a real error, not a warning: the check still fails
# must-lose: average_gradients_frozen_and_tied
# must-keep: average_gradients_matches_single_process, ring_all_reduce_matches_builtin, ring_all_reduce_uneven_sizes, ring_all_reduce_in_place, ring_all_reduce_point_to_point_only, ring_all_reduce_bytes_match_cost, ring_all_reduce_subgroup, ring_all_reduce_cost_values
import traceback


def average_gradients(model, group=None):
    world_size = dist.get_world_size(group)
    for parameter in model.parameters():
        try:
            dist.all_reduce(parameter.grad, group=group)
            parameter.grad.div_(world_size)
        except Exception:  # BUG: swallows the error a frozen parameter causes, printing it
            traceback.print_exc()
