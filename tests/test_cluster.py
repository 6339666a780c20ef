"""The scripts on two nodes, as two machines run them, here on one: two torchrun agents meeting through the c10d
rendezvous on 127.0.0.1, 2 ranks each. The README's per-node command trains (01_train_ddp.py); the SLURM script
(lessons/scripts/slurm/train_resume.sbatch, `srun` and `scontrol` stood in for) runs 03_train_resume.py, one node's
agent is killed with its ranks and started again, and the job resumes and ends bit-identical to a run that never
failed. The sbatch file is valid bash and runs the README's command. The other six scripts, each on two nodes:

    pytest tests/test_cluster.py
    DISTLAB_TEST_EVERY_SCRIPT_ON_TWO_NODES=1 pytest tests/test_cluster.py -k each_script   # ~3.5 min

Bounded: every wait of a test shares one deadline (DEADLINE_S, $DISTLAB_TEST_DEADLINE_S), and at its end whatever
still runs in its temporary folder is killed (torchrun starts each rank in a session of its own, so killing a process
group would not reach them). Cost: 3 + 2 torchrun agents and 8 + 4 rank starts, each importing torch.
"""
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

import distlab
from distlab.launching.ports import free_port, listening
from distlab.launching.process_tree import kill_processes_in

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "lessons" / "scripts"
SBATCH = SCRIPTS / "slurm" / "train_resume.sbatch"
DEADLINE_S = float(os.environ.get("DISTLAB_TEST_DEADLINE_S", "180"))  # per test: every wait below shares it


def readme_node_command() -> str:
    """The per-node command of the README's "On a real cluster" (its bash block's continued line), joined."""
    section = (ROOT / "README.md").read_text().split("## On a real cluster", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    return " ".join(line.strip().rstrip("\\") for line in block.splitlines() if not line.startswith("#")).strip()


def readme_command_running(script_and_args: str, port: int, job_id: str) -> str:
    """The README's per-node command, meeting at 127.0.0.1:`port`, running `script_and_args` instead of 03's."""
    command = readme_node_command().replace("$HEAD:29500", f"127.0.0.1:{port}").replace("$JOB", job_id)
    return command.replace("03_train_resume.py --dir $CKPT", script_and_args)


def sbatch_command() -> str:
    """The torchrun line of the sbatch file (after `srun`), joined."""
    text = SBATCH.read_text()
    line = text[text.index("srun torchrun"):]
    return " ".join(part.strip().rstrip("\\") for part in line.split("\n")[:2]).strip()


class Node:
    """One "machine": `command` run by bash in `folder` (the job's folder, shared by the nodes as a cluster's
    filesystem is), its output in `log`; `kill()` ends the whole tree (its torchrun and the ranks it started), as
    when the machine dies."""

    def __init__(self, command: str, folder: Path, log: Path, env: dict):
        self.log = log
        with open(log, "w") as out:
            self.proc = subprocess.Popen(["bash", "-c", command], cwd=folder, env=env, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)

    def tree(self) -> list[psutil.Process]:
        try:
            root = psutil.Process(self.proc.pid)
            return [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def kill(self) -> None:
        tree = self.tree()  # before the kill: the ranks, in sessions of their own, would be reparented
        for p in tree:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(tree, timeout=10)
        self.proc.wait(10)

    def output(self) -> str:
        return self.log.read_text()


def environment(tmp_path: Path) -> dict:
    """A learner's shell: no TORCH_*/DISTLAB_* variables, the course's Python first on PATH (torchrun), the stand-ins
    for `srun` and `scontrol` after it, torchrun's log folders in tmp_path."""
    fake = tmp_path / "slurm-bin"
    fake.mkdir(exist_ok=True)
    (fake / "srun").write_text('#!/bin/sh\nexec "$@"\n')  # one task: this node's
    (fake / "scontrol").write_text("#!/bin/sh\necho 127.0.0.1\n")  # `show hostnames`: node 0 first
    for tool in fake.iterdir():
        tool.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH", "DISTLAB", "MASTER_", "RANK"))}
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), str(fake), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    env["TMPDIR"] = str(tmp_path)
    return env


def wait_until(condition, deadline: float, what: str, nodes=()) -> None:
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"deadline passed waiting for {what}\n" + "\n".join(
                f"--- {n.log.name}:\n{n.output()[-3000:]}" for n in nodes))
        time.sleep(0.1)


def hung(node: Node) -> bool:
    """Both of the node's ranks are stopped (an error if the node exited instead)."""
    assert node.proc.poll() is None, f"{node.log.name}: exited with {node.proc.returncode}:\n{node.output()[-4000:]}"
    return sum(status(p) == psutil.STATUS_STOPPED for p in node.tree()) == 2


def status(process: psutil.Process) -> str | None:
    try:
        return process.status()
    except psutil.Error:  # it exited meanwhile
        return None


def finished(nodes, deadline: float) -> None:
    """Both agents exited with 0 before the deadline."""
    wait_until(lambda: all(n.proc.poll() is not None for n in nodes), deadline, "the agents to finish", nodes)
    for n in nodes:
        assert n.proc.returncode == 0, f"{n.log.name}: exited with {n.proc.returncode}:\n{n.output()[-4000:]}"


@pytest.fixture
def nodes(tmp_path):
    """The nodes a test starts; at the end every process still running in their folders is killed."""
    started = []
    yield started
    for node in started:
        node.kill()
    kill_processes_in(tmp_path)


def job_folder(tmp_path: Path, script: str) -> Path:
    """The folder the nodes run in (a copy of the script in it), as lessons/scripts/ on a shared filesystem."""
    job = tmp_path / "job"
    job.mkdir()
    shutil.copy(SCRIPTS / script, job)
    return job


def test_the_readme_command_trains_on_two_nodes(tmp_path, nodes):
    """01_train_ddp.py in place of 03_train_resume.py (as the README says any script can be): 4 ranks on 2 nodes."""
    deadline = time.monotonic() + DEADLINE_S
    port, env, job = free_port(), environment(tmp_path), job_folder(tmp_path, "01_train_ddp.py")
    command = readme_command_running("01_train_ddp.py --epochs 2", port, "train")
    nodes.extend(Node(command, job, tmp_path / f"node{n}.txt", env) for n in (0, 1))
    finished(nodes, deadline)
    output = nodes[0].output() + nodes[1].output()
    assert "training on 4 rank(s) (cpu), global batch 64 = 4 x 16" in output, output
    assert len(re.findall(r"final loss [\d.]+", output)) == 1, output  # rank 0 only, on one of the nodes


def test_sbatch_job_resumes_after_a_node_is_killed_and_restarted(tmp_path, nodes):
    """Node 1's ranks hang at step 9 (DISTLAB_FAIL_AT ...:stop: SIGSTOP, after the checkpoint of step 8); node 1 is
    killed (its torchrun and ranks: the machine died) and started again. Node 0's ranks fail in their collective, its
    torchrun restarts them, the two nodes meet again and resume from step 8: the weights end bit-identical to 4
    ranks that never failed. Node 0 is started first, so that it hosts the rendezvous (as --rdzv-endpoint names it).
    Which ranks a node holds depends on the agents' process ids (the rendezvous sorts the nodes by address, then
    process id): DISTLAB_FAIL_AT names all four, and only node 1 reads it."""
    deadline = time.monotonic() + DEADLINE_S
    port, env, job = free_port(), environment(tmp_path), job_folder(tmp_path, "03_train_resume.py")
    # (a node that stops sending heartbeats is dropped from the rendezvous after keep_alive_interval x 3 missed ones:
    # 2 s here instead of 5, so that node 0 waits 6 s for node 1's replacement instead of 15)
    (job / "job.sbatch").write_text(SBATCH.read_text().replace(":29500", f":{port}").replace(
        "--rdzv-backend=c10d", "--rdzv-backend=c10d --rdzv-conf=keep_alive_interval=2"))
    run = f"bash job.sbatch {shlex.quote(str(tmp_path / 'ckpt'))}"
    env = {**env, "SLURM_JOB_NODELIST": "node[0-1]", "SLURM_NNODES": "2", "SLURM_JOB_ID": "42"}
    nodes.append(Node(run, job, tmp_path / "node0.txt", {**env, "SLURM_NODEID": "0"}))
    wait_until(lambda: listening(port), deadline, "node 0's rendezvous store", nodes)
    hang = {"DISTLAB_FAIL_AT": ",".join(f"{rank}:9:stop@0" for rank in range(4))}
    nodes.append(Node(run, job, tmp_path / "node1-first.txt", {**env, "SLURM_NODEID": "1", **hang}))
    wait_until(lambda: hung(nodes[1]), deadline, "node 1's ranks to hang at step 9", nodes)
    nodes[1].kill()
    nodes.append(Node(run, job, tmp_path / "node1-again.txt", {**env, "SLURM_NODEID": "1"}))
    finished([nodes[0], nodes[2]], deadline)
    output = nodes[0].output() + nodes[2].output()  # rank 0's lines: on either node
    hangs = re.findall(r"injected failure: rank \d at step 9 \(SIGSTOP\)", nodes[1].output())
    assert len(hangs) == 2, nodes[1].output()
    assert re.search(r"attempt \d: started at step 8, trained to step 24", output), output
    clean = distlab.launch(train_and_digest, 4, args=(str(tmp_path / "clean"),), timeout=120)[0]
    assert re.findall(r"weights digest (\w+)", output) == [clean], output


def train_and_digest(folder):
    """4 ranks that never fail: the digest the resumed job must end with."""
    spec = importlib.util.spec_from_file_location("train_resume", SCRIPTS / "03_train_resume.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script.digest(script.train(folder)["weights"])


def test_the_sbatch_file_is_valid_bash_and_runs_the_readme_command():
    subprocess.run(["bash", "-n", str(SBATCH)], check=True, timeout=30)
    readme, sbatch = readme_node_command(), sbatch_command()
    assert readme.startswith("TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 torchrun ")
    assert "\nexport TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 " in SBATCH.read_text()
    assert "#SBATCH --nodes=2\n" in SBATCH.read_text() and "#SBATCH --ntasks-per-node=1\n" in SBATCH.read_text()
    # the same command once each side's variables are named alike
    as_typed = shlex.split(readme.split(" ", 1)[1].replace("$HEAD", "NODE0").replace("$JOB", "ID")
                           .replace("$CKPT", "FOLDER"))
    in_sbatch = shlex.split(sbatch.removeprefix("srun ").replace('"$SLURM_NNODES"', "2").replace("$head", "NODE0")
                            .replace("$SLURM_JOB_ID", "ID").replace("$ckpt", "FOLDER"))
    assert as_typed == in_sbatch, (as_typed, in_sbatch)


TWO_NODES = {  # the scripts the tests above do not run on two nodes: arguments, and a line only a finished run prints
    "02_train_fsdp2.py": (["--out", "weights.pt"], "rank 0's last loss (cpu; on its share of the batch)"),
    "04_train_tp.py": ([], "TP=4 (cpu):"),
    "05_train_pipeline.py": ([], "4 ranks, 8 microbatches (cpu): loss"),
    "06_train_amp.py": ([], "4 ranks, cpu, fp16 autocast + GradScaler"),
    "07_decode_tp.py": (["--new-tokens", "5"], "TP=4 (gloo): 5 tokens"),
    "08_elastic.py": (["--dir", "ckpt"], "finished at step 16 on 4 ranks"),  # its shrinking: tests/test_elastic.py
}


def test_every_script_is_run_on_two_nodes():
    assert sorted([*TWO_NODES, "01_train_ddp.py", "03_train_resume.py"]) == sorted(p.name for p in SCRIPTS.glob("*.py"))


@pytest.mark.skipif(os.environ.get("DISTLAB_TEST_EVERY_SCRIPT_ON_TWO_NODES") != "1",
                    reason="~25-50 s a script: DISTLAB_TEST_EVERY_SCRIPT_ON_TWO_NODES=1 runs them (CI runs 01 and 03)")
@pytest.mark.parametrize("script", sorted(TWO_NODES))
def test_each_script_runs_unchanged_on_two_nodes(script, tmp_path, nodes):
    """The README's per-node command with this script: 2 agents x 2 ranks; the script's own checks (most compare with
    one process) pass there as on one machine."""
    deadline = time.monotonic() + DEADLINE_S
    port, env, job = free_port(), environment(tmp_path), job_folder(tmp_path, script)
    args, says = TWO_NODES[script]
    command = readme_command_running(shlex.join([script, *args]), port, "job")
    nodes.extend(Node(command, job, tmp_path / f"node{n}.txt", env) for n in (0, 1))
    finished(nodes, deadline)
    output = nodes[0].output() + nodes[1].output()
    assert output.count(says) == 1, output  # rank 0 says it, on one of the nodes


def test_every_script_joins_through_distlab_init_distributed():
    """NCCL and the local GPU where there are GPUs, gloo otherwise: one choice, made in one place."""
    for script in sorted(SCRIPTS.glob("*.py")):
        source = script.read_text()
        assert "distlab.init_distributed()" in source and "init_process_group(" not in source, script.name
