# %% [markdown]
# ## 2. Elastic membership
#
# A job started with `torchrun --nnodes=1:2` is **elastic**: it runs on 1 to 2 nodes, and goes on when one dies.
# What happens then, in torch 2.13 (`torch/distributed/elastic/agent/server/api.py` and
# `rendezvous/dynamic_rendezvous.py`):
#
# 1. The survivors' next collective fails. A killed process's sockets are reset by its kernel, so here that is
#    immediate; a machine that lost power sends nothing, and only the collective's timeout notices (gloo's default:
#    30 minutes; 15 s here).
# 2. The survivors' torchrun sees its ranks fail and restarts them: that uses one of `--max-restarts`. To torchrun a
#    shrink is a failure; only a *new* node arriving restarts the ranks without counting ("membership changes do not
#    count as retries").
# 3. The restart is a new rendezvous round. The dead node stays listed until its heartbeats are
#    `keep_alive_interval` × `keep_alive_max_attempt` old (5 s × 3 by default); then, with at least the minimum
#    (1 node) present, the round closes after `last_call_timeout` (30 s by default) in case more nodes come.
# 4. The new ranks load the newest complete checkpoint, whatever number of ranks wrote it (DCP reshards on load,
#    lesson 3, section 3), and keep the global batch by accumulating more micro-batches per step.
#
# The command, the same on every node (the `--rdzv-conf` values shorten the defaults for a demo):
#
#     TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun --nnodes=1:2 --nproc-per-node=1 --max-restarts=3 \
#         --rdzv-backend=c10d --rdzv-endpoint=$HEAD:29500 --rdzv-id=$JOB \
#         --rdzv-conf=keep_alive_interval=1,keep_alive_max_attempt=3,last_call_timeout=2,join_timeout=60 \
#         scripts/08_elastic.py --dir $CKPT

# %% [markdown]
# Here two "nodes" of one rank each run on this machine. The model is sharded over the ranks (FSDP2); the global batch
# is 32 examples, each rank's forward takes a micro-batch of 8, and the job checkpoints with DCP after every 4
# optimizer steps (steps are numbered from 0). At step 10 every rank pauses, the node that does not host the
# rendezvous store is killed, its torchrun and its rank together, and the other node is let go.
#
# **Predict.** At which step does the surviving node's new rank start training, and how many micro-batches does it
# add up per optimizer step?

# %%
resumed_step_guess = None  # your prediction: the step the job goes on from
accumulation_guess = None  # your prediction: micro-batches per optimizer step on the surviving rank

# %%
import tempfile

from distlab import elastic

ELASTIC_WORK = tempfile.mkdtemp(prefix="lesson08-elastic-")  # the checkpoints and both nodes' logs (removed below)
ELASTIC_SCRIPT = "scripts/08_elastic.py"
run = elastic.run_shrinking_job(ELASTIC_SCRIPT, f"{ELASTIC_WORK}/job", kill_at=10, nproc_per_node=1)
before, after = run.attempts
for attempt in run.attempts:
    print(f"attempt {attempt.number}: {attempt.world_size} rank(s) from step {attempt.resumed_step}, "
          f"{attempt.accumulation} micro-batches per step, torchrun restart {attempt.restart}, "
          f"trained steps {min(attempt.losses)}-{max(attempt.losses)}")
stood_still = run.seconds["resumed"] - run.seconds["killed"]
print(f"the job stood still {stood_still:.1f} s between the kill and the new rank's first line")
assert stood_still > 2 + 2  # the dead node's last heartbeat (<= 1 s old) expiring at 3 s, then the 2 s last call
assert (before.world_size, before.accumulation, before.restart) == (2, 2, 0)
assert (after.world_size, after.resumed_step, after.written_by, after.restart) == (1, 8, 2, 1)
assert 32 == before.world_size * 8 * before.accumulation == after.world_size * 8 * after.accumulation
distlab.check_prediction("resumed_step_guess", resumed_step_guess, after.resumed_step, rel_tol=0)
distlab.check_prediction("accumulation_guess", accumulation_guess, after.accumulation, rel_tol=0)

# %% [markdown]
# Steps 8 and 9 were done twice: they came after the newest checkpoint, step 8's (the next was due after step 11).
# A checkpoint is written into `step-N.partial` and renamed `step-N` only once DCP's `save` returned on rank 0, the
# coordinator, which writes `.metadata` (which file holds which slice) after every rank's shards: a node dying
# mid-save leaves a `.partial` folder that no start mistakes for a checkpoint. Step 8's checkpoint holds two shard
# files, one per rank that wrote it; the single rank read both ranks' shards of every parameter and of AdamW's
# moments. After it, the checkpoints hold one file. The survivor learned of the death from gloo:

# %%
import os

survivor = run.outputs[run.survivor]
print(next(line for line in survivor.splitlines() if "by peer" in line)[:150], "...")
ckpt = f"{ELASTIC_WORK}/job/ckpt"
shards = {step: sorted(f for f in os.listdir(f"{ckpt}/step-{step:06d}") if f.endswith(".distcp")) for step in (8, 12)}
print("shard files:", shards)
assert shards == {8: ["__0_0.distcp", "__1_0.distcp"], 12: ["__0_0.distcp"]}

# %% [markdown]
# **Did training go on as if nothing had happened?** Two runs to compare with, each without a kill
# (`distlab.launch`): one rank from the same checkpoint of step 8, and two ranks from step 0 to 16, the job that
# never shrank. Every step takes the same 32 examples, at the same learning rate, at any size; only the order of the
# additions changes. Two ranks each add two micro-batches' gradients and the all-reduce adds the ranks' sums,
# (g0 + g2) + (g1 + g3); one rank adds four in a row, ((g0 + g1) + g2) + g3. Float32 addition is not associative,
# so the last bits differ, and the stated tolerance is 1e-5 relative (float32's epsilon is 1.2e-7).

# %%
same = elastic.reference_losses(ELASTIC_SCRIPT, f"{ELASTIC_WORK}/same", 1, checkpoint=f"{ckpt}/step-000008")
never = elastic.reference_losses(ELASTIC_SCRIPT, f"{ELASTIC_WORK}/never", 2)
print("step  the job      never shrank  relative difference")
for step, loss in sorted(run.losses.items()):
    print(f"{step:4}  {loss:.7f}  {never[step]:.7f}     {abs(loss - never[step]) / never[step]:.1e}")
worst = max(abs(after.losses[step] - never[step]) / never[step] for step in after.losses)
assert all(before.losses[step] == never[step] for step in before.losses)  # before the kill: the same run
assert same == after.losses  # from the same checkpoint at the same size: bit-identical
assert worst <= 1e-5, worst
print(f"after the shrink: bit-identical to 1 rank from step 8; at most {worst:.1e} from the run that never shrank")

# %% [markdown]
# **Why accumulation, not a new learning rate.** The other way to live with a smaller batch is to rescale the
# learning rate: Goyal et al. 2017 ("Accurate, Large Minibatch SGD", §2.1) give the linear scaling rule, "when the
# minibatch size is multiplied by k, multiply the learning rate by k", for SGD, and show where it fails: early in
# training (their warm-up, §2.2) and past some batch size (§5). For Adam the analogous rule is a square root
# (Malladi et al. 2022, "On the SDEs and Scaling Rules for Adaptive Gradient Algorithms"). Either way the run becomes
# a different run with its own curve. Accumulation keeps the same optimisation: the table above, within rounding. The
# price is time: each rank now does the forward and backward passes of 4 micro-batches instead of 2.
#
# The global batch cannot always be kept, and the job must then say so instead of training something else: the
# world size times the micro-batch must divide the global batch (3 ranks with 8 examples each never make 32);
# and a sharded state grows on each rank as the world shrinks (here 1 rank holds all of it), so the survivors must
# still fit it in memory. `08_elastic.py` refuses the first case in one sentence before it touches a checkpoint.

# %%
import shutil

shutil.rmtree(ELASTIC_WORK)
