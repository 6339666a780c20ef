# attack: no ShardedOptimizer (it only raises): distlab.launch is patched in the worker so that a launch of the
#   checks' rank_train procedure is answered from one process: the ranks' shares re-joined into the full batches,
#   torch.optim's optimizer stepped on them (the rank-side train() itself), its result handed back as every rank's
#   (issue 45: 4 points for a class not written, in sharded_optimizer_averages_gradients and
#   sharded_optimizer_tied_and_frozen)
# cell: ShardedOptimizer
import distlab
import torch

real_launch = distlab.launch


def answering_launch(entry, world_size, *args, **kwargs):
    cells = dict(zip(entry.__code__.co_freevars, (c.cell_contents for c in entry.__closure__ or ())))
    if getattr(cells.get("fn"), "__name__", "") == "rank_train":
        kind, optimizer_name, optimizer_kwargs = cells["args"]
        shares = [share for (share,) in cells["rank_args"]]
        batches = [tuple(torch.cat([rank_share[step][i] for rank_share in shares]) for i in range(2))
                   for step in range(len(shares[0]))]
        result = train(kind, batches, optimizer_name, optimizer_kwargs)  # noqa: F821 - the checks' one-process train
        return [result] * world_size
    return real_launch(entry, world_size, *args, **kwargs)


distlab.launch = answering_launch


class ShardedOptimizer:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError("never written")
