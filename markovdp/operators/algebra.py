"""The post-processing algebra (DESIGN §5): ``K1 >> K2``, ``K ** r``, mixtures and tensor products.

Every simplification is an exact identity applied at construction. ``K1 >> K2`` merges by the rules the
kernel classes register in `MERGES` (finite ∘ finite → P1 @ P2, Gaussian ∘ Gaussian → sqrt(s1² + s2²),
the identity is neutral); ``K ** r`` folds ``>>`` by repeated squaring; mixtures and tensor products of
finite kernels → one `FiniteKernel`; nested tensors flatten.
What does not simplify stays a node (`Chain`, `Power`, `Mixture`, `Tensor`) that samples exactly
and prints the expression.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_int, check_points, check_probability_vector, check_size, fail
from ..distributions import Distribution
from ..pairs import PUSHES, PairSet
from ..spaces import FiniteSpace, RealSpace, Space, require_compatible
from .base import MERGES, MarkovOperator, check_inputs
from .finite import FiniteKernel
from .gaussian import GaussianKernel
from .identity import Identity


def _check_operator(name: str, value: Any) -> MarkovOperator:
    if not isinstance(value, MarkovOperator):
        raise fail(name, "a MarkovOperator", type(value).__name__, TypeError)
    return value


def _check_operators(name: str, values: Any) -> tuple[MarkovOperator, ...]:
    """A non-empty list or tuple of MarkovOperators, as a tuple (the operands of a node)."""
    if not isinstance(values, (list, tuple)) or not values:
        raise fail(name, "a non-empty tuple of MarkovOperators", repr(values), TypeError)
    return tuple(_check_operator(name, op) for op in values)


def as_finite_kernel(op: MarkovOperator) -> FiniteKernel | None:
    """`op` as one FiniteKernel when it is one exactly (a finite kernel, or the identity on {0..k-1})."""
    if isinstance(op, FiniteKernel):
        return op
    if isinstance(op, Identity) and isinstance(op.space, FiniteSpace):
        return FiniteKernel(op.matrix)
    return None



def _merge_pair(left: MarkovOperator, right: MarkovOperator) -> MarkovOperator | None:
    """The exact single operator equal to `left >> right` (a rule registered in `MERGES`), or None."""
    rule = MERGES.lookup(type(left), type(right))
    return None if rule is None else rule(left, right)


@dataclass(frozen=True)
class Chain(MarkovOperator):
    """First ``operators[0]``, then ``operators[1]``, …: the kernel K1 K2 ⋯ (THEORY: Notation)."""

    operators: tuple[MarkovOperator, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "operators", _check_operators("operators", self.operators))

    @property
    def domain(self) -> Space:
        return self.operators[0].domain

    @property
    def codomain(self) -> Space:
        return self.operators[-1].codomain

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        """Each operator in turn; a chain of Lipschitz Gaussian kernels in one compiled call (`sample_chain`)."""
        from .lipschitz_gaussian import is_lipschitz_chain, sample_chain

        if is_lipschitz_chain(self.operators):
            return sample_chain(self.operators, x, rng)
        gen = as_generator(rng)
        for op in self.operators:
            x = op.sample(x, rng=gen)
        return np.asarray(x)

    def push(self, mu: Distribution) -> Distribution:
        return reduce(lambda law, op: op.push(law), self.operators, mu)

    def __repr__(self) -> str:
        return " >> ".join(_wrapped(op) for op in self.operators)


def compose(first: MarkovOperator, then: MarkovOperator) -> MarkovOperator:
    """``first >> then``: the kernel x ↦ K_first(x) K_then, merged exactly where possible."""
    _check_operator("first", first)
    _check_operator("then", then)
    require_compatible(first.codomain, then.domain, "K1 >> K2")
    ops: list[MarkovOperator] = []
    for op in (*_parts(first), *_parts(then)):
        merged = _merge_pair(ops[-1], op) if ops else None
        if merged is None:
            ops.append(op)
        else:
            ops[-1] = merged
    return ops[0] if len(ops) == 1 else Chain(tuple(ops))


def _parts(op: MarkovOperator) -> tuple[MarkovOperator, ...]:
    return op.operators if isinstance(op, Chain) else (op,)


@PUSHES.register((Chain, PairSet))
def _push_chain(chain: Chain, pairs: PairSet) -> PairSet:
    """Through each operator in turn: exact when every step keeps the pairs exact."""
    return reduce(lambda acc, op: op.push_pairs(acc), chain.operators, pairs)


@dataclass(frozen=True)
class Power(MarkovOperator):
    """K ** r: the r-fold composition K K ⋯ K (r >= 2)."""

    base: MarkovOperator
    r: int

    def __post_init__(self) -> None:
        _check_operator("base", self.base)
        object.__setattr__(self, "r", check_int("r", self.r, minimum=1))

    @property
    def domain(self) -> Space:
        return self.base.domain

    @property
    def codomain(self) -> Space:
        return self.base.codomain

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        """r steps of the base; a Lipschitz Gaussian kernel's r steps in one compiled call (`sample_steps`)."""
        from .lipschitz_gaussian import LipschitzGaussianKernel

        if isinstance(self.base, LipschitzGaussianKernel):
            return self.base.sample_steps(x, self.r, rng)
        gen = as_generator(rng)
        for _ in range(self.r):
            x = self.base.sample(x, rng=gen)
        return np.asarray(x)

    def push(self, mu: Distribution) -> Distribution:
        for _ in range(self.r):
            mu = self.base.push(mu)
        return mu

    def __repr__(self) -> str:
        return f"{_wrapped(self.base)} ** {self.r}"


@PUSHES.register((Power, PairSet))
def _push_power(op: Power, pairs: PairSet) -> PairSet:
    """Through the base r times: exact when each step keeps the pairs exact."""
    for _ in range(op.r):
        pairs = op.base.push_pairs(pairs)
    return pairs


def power(kernel: MarkovOperator, r: int) -> MarkovOperator:
    """``K ** r`` for an int r >= 1: a fold of ``>>``, by repeated squaring where K merges with itself
    (finite: P^r in O(log r) products; Gaussian: sigma sqrt(r)), otherwise a `Power` node."""
    _check_operator("kernel", kernel)
    if isinstance(r, numbers.Real) and not isinstance(r, numbers.Integral):
        raise fail("r", "an integer >= 1", r, TypeError)
    r = check_int("r", r, minimum=1)
    require_compatible(kernel.codomain, kernel.domain, "K ** r")
    if r == 1:
        return kernel
    if _merge_pair(kernel, kernel) is None:
        return Power(kernel, r)
    result: MarkovOperator | None = None
    square = kernel
    while True:  # r = Σ 2^j over the set bits: multiply in the squares K^(2^j) of those bits
        if r & 1:
            result = square if result is None else compose(result, square)
        r >>= 1
        if not r:
            return result  # type: ignore[return-value]
        square = compose(square, square)


@dataclass(frozen=True, eq=False)
class Mixture(MarkovOperator):
    """x ↦ Σ_i w_i K_i(x): pick component i with probability w_i, then sample it."""

    components: tuple[MarkovOperator, ...]
    weights: NDArray[np.float64]

    def __post_init__(self) -> None:
        components = _check_operators("components", self.components)
        weights = check_probability_vector("weights", self.weights)
        if weights.size != len(components):
            raise fail("weights", f"one weight per component ({len(components)})", f"{weights.size} weights")
        object.__setattr__(self, "components", components)
        object.__setattr__(self, "weights", weights)

    @property
    def domain(self) -> Space:
        return self.components[0].domain

    @property
    def codomain(self) -> Space:
        return self.components[0].codomain

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]:
        gen = as_generator(rng)
        x = check_inputs(self.domain, x)
        scalar = x.ndim == (0 if self.domain.size == 1 or isinstance(self.domain, FiniteSpace) else 1)
        x = x.reshape((1,) + x.shape) if scalar else x
        which = gen.choice(len(self.components), size=x.shape[0], p=self.weights)
        parts = [op.sample(x[which == i], rng=gen) for i, op in enumerate(self.components)]
        out = np.empty((x.shape[0],) + parts[0].shape[1:], dtype=np.result_type(*parts))
        for i, part in enumerate(parts):
            out[which == i] = part
        return out[0] if scalar else out

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Mixture) and self.components == other.components
                and np.array_equal(self.weights, other.weights))

    def __hash__(self) -> int:
        return hash((self.components, self.weights.tobytes()))

    def __repr__(self) -> str:
        inner = ", ".join(map(repr, self.components))
        return f"mixture([{inner}], weights={self.weights.tolist()!r})"


def mixture(kernels: Sequence[MarkovOperator], weights: ArrayLike | None = None) -> MarkovOperator:
    """The mixture Σ w_i K_i (uniform weights by default); finite kernels merge into Σ w_i P_i."""
    if isinstance(kernels, MarkovOperator) or not isinstance(kernels, Sequence):
        raise fail("kernels", "a sequence of operators, e.g. [K1, K2]", type(kernels).__name__, TypeError)
    kernels = tuple(_check_operator("kernels", k) for k in kernels)
    if not kernels:
        raise fail("kernels", "a non-empty sequence of operators", "[]")
    w = (np.full(len(kernels), 1.0 / len(kernels)) if weights is None
         else check_probability_vector("weights", weights))
    if w.size != len(kernels):
        raise fail("weights", f"one weight per kernel ({len(kernels)})", f"{w.size} weights")
    for k in kernels[1:]:
        require_compatible(kernels[0].domain, k.domain, "mixture")
        require_compatible(kernels[0].codomain, k.codomain, "mixture")
    if len(kernels) == 1:
        return kernels[0]
    finite = [as_finite_kernel(k) for k in kernels]
    if all(f is not None for f in finite):
        total = sum(wi * f.matrix for wi, f in zip(w, finite, strict=True))
        return FiniteKernel(total / total.sum(axis=1, keepdims=True))
    return Mixture(kernels, w)


@dataclass(frozen=True)
class Tensor(MarkovOperator):
    """(x_1, …, x_n) ↦ K_1(x_1) ⊗ ⋯ ⊗ K_n(x_n) on R^(d_1 + … + d_n): independent coordinates (AAC-phi)."""

    factors: tuple[MarkovOperator, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "factors", _check_operators("factors", self.factors))

    @property
    def domain(self) -> RealSpace:
        return RealSpace(sum(f.domain.size for f in self.factors))

    @property
    def codomain(self) -> RealSpace:
        return RealSpace(sum(f.codomain.size for f in self.factors))

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        gen = as_generator(rng)
        points = check_points("x", x, self.domain.d)  # (n, d), or one point (d,)
        batch = np.atleast_2d(points)
        outs, start = [], 0
        for f in self.factors:
            d = f.domain.size
            block = batch[:, start:start + d]
            outs.append(f.sample(block[:, 0] if d == 1 else block, rng=gen).reshape(len(batch), f.codomain.size))
            start += d
        out = np.concatenate(outs, axis=1)
        return out[0] if points.ndim == 1 else out

    def __repr__(self) -> str:
        return f"tensor({', '.join(map(repr, self.factors))})"


def tensor(*kernels: MarkovOperator) -> MarkovOperator:
    """The product kernel K_1 ⊗ ⋯ ⊗ K_n (independent coordinates), flattened.

    Finite factors merge into one `FiniteKernel` on the product space, states encoded row-major:
    (x_1, …, x_n) ↦ ((x_1 k_2 + x_2) k_3 + …), i.e. the Kronecker product of the matrices.
    Gaussian factors with one sigma merge into one `GaussianKernel` of the summed dimension.
    """
    factors: list[MarkovOperator] = []
    for k in kernels:
        k = _check_operator("kernels", k)
        factors.extend(k.factors if isinstance(k, Tensor) else (k,))
    if not factors:
        raise fail("kernels", "at least one operator", "none")
    if len(factors) == 1:
        return factors[0]
    finite = [as_finite_kernel(f) for f in factors]
    if all(f is not None for f in finite):
        log_entries = sum(math.log(f.matrix.size) for f in finite)
        check_size("kernels", f"{len(finite)} finite kernels", math.exp(min(log_entries, 709.0)),
                   what="the product matrix")
        return FiniteKernel(reduce(np.kron, [f.matrix for f in finite]))
    if all(isinstance(f, GaussianKernel) for f in factors) and len({f.sigma for f in factors}) == 1:
        return GaussianKernel(factors[0].sigma, sum(f.dim for f in factors))
    if any(isinstance(f.domain, FiniteSpace) for f in factors):
        raise NotImplementedError(
            f"A tensor product of finite and continuous factors (or of finite operators that are not finite "
            f"kernels) is not supported; got {factors!r}."
        )
    return Tensor(tuple(factors))


def tensor_power(kernel: MarkovOperator, n: int) -> MarkovOperator:
    """K^{⊗n}: n independent copies of K (AAC-phi); `n` >= 1. A finite K gives a (k^n, m^n) matrix: refused
    before it is built when it would not fit in the memory cap (`markovdp._validation.memory_cap`)."""
    _check_operator("kernel", kernel)
    n = check_int("n", n, minimum=1)
    finite = as_finite_kernel(kernel)
    log_entries = math.log(finite.matrix.size) if finite is not None else 0.0
    check_size("n", n, n + math.exp(min(n * log_entries, 709.0)), what="the n factors and their product matrix")
    return tensor(*([kernel] * n))


def _wrapped(op: MarkovOperator) -> str:
    text = repr(op)
    return f"({text})" if isinstance(op, (Chain, Power)) else text


__all__ = ["Chain", "Mixture", "Power", "Tensor", "compose", "mixture", "power", "tensor", "tensor_power"]
