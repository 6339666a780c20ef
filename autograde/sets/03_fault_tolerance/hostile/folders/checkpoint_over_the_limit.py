# The solution, with a checkpoint of 1 GiB and a byte beside it (sparse: the test is fast): the grader read such a
# file whole to hash it (a 3 GB one took it to 3,246 MB); a folder over grade.SUBMISSION_BYTES is refused.
# reason: its files hold more than 1 GiB
import json
from pathlib import Path


def make(folder: Path, solution: dict, name: str) -> None:
    (folder / name).write_text(json.dumps(solution))
    (folder / "checkpoints").mkdir()
    with open(folder / "checkpoints" / "step-1000.pt", "wb") as f:
        f.truncate(2**30 + 1)
