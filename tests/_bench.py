"""A benchmark script (benchmarks/bench_<name>.py) loaded as a module, for the tests that run it in this process.

    bench = load_bench("bench_05"); bench.main(["--quick"])
"""
import importlib.util
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_bench(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
