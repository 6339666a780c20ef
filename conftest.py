"""pytest hooks for the whole suite (tests/, lessons/, solutions/).

The nbgrader round trips (tests/test_nbgrader.py) take the longest, mostly waiting on kernels and deadlines: they go
first, so that with `./course test` (two workers, `--dist loadfile`) one worker grades while the other runs the rest.
"""


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: item.nodeid.split("::")[0] != "tests/test_nbgrader.py")  # stable: keeps the rest
