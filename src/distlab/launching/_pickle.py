"""cloudpickle, but functions keep the file they were defined in (a notebook cell, a script).

cloudpickle 3 renames every code object's file to "<dynamic-code>", so a rank's traceback could not point at the
learner's cell. Keeping the name lets the notebook show the failing line of the cell that defined the function.
"""
import importlib
import io
import sys
import types
from collections import ChainMap

import cloudpickle
from cloudpickle import cloudpickle as _impl


def _reduce_code_keeping_filename(code: types.CodeType):
    constructor, args = _impl._code_reduce(code)
    return constructor, tuple(code.co_filename if arg == "<dynamic-code>" else arg for arg in args)


class _Pickler(cloudpickle.Pickler):
    dispatch_table = ChainMap({types.CodeType: _reduce_code_keeping_filename}, cloudpickle.Pickler.dispatch_table)

    def reducer_override(self, obj):
        # A module of a subclass of ModuleType (torch's config modules, e.g. torch.distributed.config, replace
        # themselves in sys.modules): cloudpickle picks it up when a function uses `dist` and reads any attribute
        # named like it (`model.config`), and cannot pickle it. The ranks import it by name instead.
        name = getattr(obj, "__name__", None)
        if isinstance(obj, types.ModuleType) and type(obj) is not types.ModuleType and sys.modules.get(name) is obj:
            return importlib.import_module, (name,)
        return super().reducer_override(obj)


def dumps(obj) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=cloudpickle.DEFAULT_PROTOCOL).dump(obj)
    return buffer.getvalue()
