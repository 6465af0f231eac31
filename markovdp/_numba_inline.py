"""Tools for generated numba kernels that keep their loop state in registers (private; imports numba).

A kernel that loops over steps stays fast only if LLVM can keep the state (a point, the generator's words) in
registers across the loop. Two things stop it: a call it cannot see into (the user's map compiled as a separate
function) and scratch arrays that may alias the arguments (``np.empty`` inside the kernel). `inlined` and
`inplace_form` remove the first, `stack_buffer` the second (used by the SDE integrators and the Lipschitz
chain sampler).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@cache
def stack_buffer(size: int) -> Any:
    """An intrinsic ``stack_buffer(size)()`` -> a float64 pointer to `size` slots on the calling kernel's stack
    (an alloca in its entry block; view it with ``numba.np.numpy_support.carray``). Scratch vectors there, unlike
    ``np.empty``, cannot alias the arguments, so LLVM keeps them in registers across the step loop (measured:
    7-8.5 -> 3.5-4.5 ns per Euler–Maruyama step of OU at d = 1)."""

    @intrinsic
    def stack(typingctx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return cgutils.alloca_once(builder, context.get_value_type(types.float64),
                                       size=context.get_constant(types.intp, size))

        return types.CPointer(types.float64)(), codegen

    return stack


@intrinsic
def stack_matrix(typingctx: Any, rows: Any, cols: Any) -> Any:
    """``stack_matrix(rows, cols)`` -> a float64 pointer to rows·cols slots on the calling kernel's stack, for two
    numba literals (`stack_buffer` for sizes known only inside a kernel compiled per literal, e.g. a dimension);
    view it with ``numba.np.numpy_support.carray(ptr, (rows, cols))``."""
    if not (isinstance(rows, types.IntegerLiteral) and isinstance(cols, types.IntegerLiteral)):
        return None
    size = rows.literal_value * cols.literal_value

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return cgutils.alloca_once(builder, context.get_value_type(types.float64),
                                   size=context.get_constant(types.intp, max(size, 1)))

    return types.CPointer(types.float64)(rows, cols), codegen


def inlined(fn: Any) -> Any:
    """The user's dispatcher recompiled from its Python source with ``inline="always"`` (its other options kept):
    inlined at numba-IR level into the generated loop. A plain dispatcher is called, not inlined, by LLVM, so the
    scratch vectors it writes stay in memory: measured 11-12 ns against 3.5-4.5 ns per Euler–Maruyama step of OU
    at d = 1."""
    options = {key: value for key, value in fn.targetoptions.items() if key not in ("cache", "inline", "nopython")}
    return njit(inline="always", **options)(fn.py_func)


@lru_cache(maxsize=256)
def inplace_form(fn: Any, fn_arity: int, matrix: bool = False) -> Any:
    """fn as ``fn(x, out)``, inlined (`inlined`): the user's in-place map itself (arity 2) or an adapter copying
    the array it returns (a vector, or a matrix when `matrix`)."""
    fn = inlined(fn)
    if fn_arity == 2:
        return fn
    if matrix:
        @njit(inline="always")
        def step_matrix(x: np.ndarray, out: np.ndarray) -> None:
            y = fn(x)
            for i in range(out.shape[0]):  # explicit loops: a slice assignment measured ~5 s more to compile
                for j in range(out.shape[1]):
                    out[i, j] = y[i, j]

        return step_matrix

    @njit(inline="always")
    def step(x: np.ndarray, out: np.ndarray) -> None:
        y = fn(x)
        for k in range(out.size):
            out[k] = y[k]

    return step
