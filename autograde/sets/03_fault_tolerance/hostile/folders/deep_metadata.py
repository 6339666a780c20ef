# Valid JSON whose first cell's metadata nests 100,000 deep: normalise raised RecursionError and no one was graded.
# reason: its JSON nests deeper than 100 levels
import json
from pathlib import Path


def make(folder: Path, solution: dict, name: str) -> None:
    solution["cells"][0]["metadata"]["deep"] = "DEEP"
    depth = 100_000
    (folder / name).write_text(json.dumps(solution).replace('"DEEP"', '{"a": ' * depth + "{}" + "}" * depth))
