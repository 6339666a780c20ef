"""cloudpickle, but functions keep the file they were defined in (a notebook cell, a script).

cloudpickle 3 renames every code object's file to "<dynamic-code>", so a rank's traceback could not point at the
learner's cell. Keeping the name lets the notebook show the failing line of the cell that defined the function.
"""
import io
import types
from collections import ChainMap

import cloudpickle
from cloudpickle import cloudpickle as _impl


def _reduce_code_keeping_filename(code: types.CodeType):
    constructor, args = _impl._code_reduce(code)
    return constructor, tuple(code.co_filename if arg == "<dynamic-code>" else arg for arg in args)


class _Pickler(cloudpickle.Pickler):
    dispatch_table = ChainMap({types.CodeType: _reduce_code_keeping_filename}, cloudpickle.Pickler.dispatch_table)


def dumps(obj) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=cloudpickle.DEFAULT_PROTOCOL).dump(obj)
    return buffer.getvalue()
