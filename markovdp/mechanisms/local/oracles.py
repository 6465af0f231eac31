"""The frequency-oracle protocol and registry: every oracle registered once, by name → factory(k, eps) (SRP-Tab1,
SRP-Est).

`FrequencyOracle` declares what the SRP-Tab1 scenario and the SRP-Est sweep (``simulations/frequency_estimation.py``)
read: the exact `channel` (a `FiniteKernel`, or an implicit channel with ``ldp_kernel()``), `sample` (reports of n
users, ``rng`` keyword), the unbiased `estimate`, and the randomness per user. Both iterate `oracle_names()` and
build oracles with `make_oracle`, so an oracle registered with `register_oracle` appears in both. On a dask cluster
the registration must also run on the workers (an installed package, or an uploaded module).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._random import RNGLike
from ..._validation import check_callable, check_instance, fail
from ..finite import RandomizedResponse
from .binary_hadamard import BinaryHadamard
from .budgeted_hadamard import BudgetedHadamard
from .hadamard import HadamardResponse
from .local_hashing import LocalHashing
from .subset import SubsetSelection
from .unary import UnaryEncoding

__all__ = ["ORACLES", "FrequencyOracle", "RegisteredOracles", "is_frequency_oracle", "make_oracle", "oracle_names",
           "register_oracle"]


@runtime_checkable
class FrequencyOracle(Protocol):
    """A local frequency oracle on inputs {0..k−1} (SRP-Tab1, SRP-Est).

    - ``channel``: the exact channel Q[x, y], a `FiniteKernel` or an implicit channel with ``ldp_kernel()``
      (``ldp_epsilon(channel)`` is its exact eps, AAC-T1);
    - ``sample(x, *, rng)``: one report per user for the inputs x (shape (n,));
    - ``estimate(reports)``: the unbiased frequency estimate f̂ (length k);
    - ``randomness_bits``: private random bits per user; ``output_entropy_bits``: max_x H(Y | X = x) (SRP's R).
    """

    @property
    def channel(self) -> Any: ...

    def sample(self, x: ArrayLike, *, rng: RNGLike = None) -> NDArray[Any]: ...

    def estimate(self, reports: ArrayLike) -> NDArray[np.float64]: ...

    @property
    def randomness_bits(self) -> float: ...

    @property
    def output_entropy_bits(self) -> float: ...


#: The protocol's members (what `is_frequency_oracle` looks up).
MEMBERS = ("channel", "sample", "estimate", "randomness_bits", "output_entropy_bits")


def is_frequency_oracle(obj: Any) -> bool:
    """``isinstance(obj, FrequencyOracle)`` without evaluating a property (Python < 3.12's isinstance reads each
    member with ``hasattr``, which would build a channel): the members are looked up statically."""
    missing = object()
    return all(inspect.getattr_static(obj, name, missing) is not missing for name in MEMBERS)


OracleFactory = Callable[[int, float], FrequencyOracle]

#: name → factory(k, eps) of every registered oracle (insertion order); change it with `register_oracle`.
ORACLES: dict[str, OracleFactory] = {}


def register_oracle(name: str, factory: OracleFactory, *, replace: bool = False) -> OracleFactory:
    """Register ``factory(k, eps) -> FrequencyOracle`` under `name`; returns the factory (usable as a decorator
    through ``functools.partial``). ValueError where the name is taken, unless ``replace=True``."""
    check_instance("name", name, str, "a non-empty string")
    if not name:
        raise fail("name", "a non-empty string", name)
    check_callable("factory", factory, "a callable factory(k, eps) returning a frequency oracle")
    if name in ORACLES and not replace:
        raise fail("name", f"a name not yet registered (or replace=True); registered: {', '.join(ORACLES)}", name)
    ORACLES[name] = factory
    return factory


def oracle_names() -> tuple[str, ...]:
    """The registered oracles' names, in registration order."""
    return tuple(ORACLES)


def make_oracle(name: str, k: int, eps: float) -> FrequencyOracle:
    """The registered oracle `name` at alphabet size k and privacy level eps (nats); TypeError where the factory
    returns something that is not a `FrequencyOracle`."""
    if not isinstance(name, str) or name not in ORACLES:
        raise fail("name", f"a registered oracle ({', '.join(ORACLES)})", name)
    oracle = ORACLES[name](k, eps)
    if not is_frequency_oracle(oracle):
        raise TypeError(f"The factory registered as {name!r} must return a FrequencyOracle (channel, sample, "
                        f"estimate, randomness_bits, output_entropy_bits); got {type(oracle).__name__}.")
    return oracle


class RegisteredOracles(Sequence[str]):
    """The registered names, read at each use: a scenario grid over it sees oracles registered after import."""

    def __iter__(self) -> Iterator[str]:
        return iter(tuple(ORACLES))

    def __len__(self) -> int:
        return len(ORACLES)

    def __getitem__(self, i: Any) -> Any:
        return tuple(ORACLES)[i]

    def __repr__(self) -> str:
        return f"RegisteredOracles({', '.join(ORACLES)})"


def _unary(k: int, eps: float) -> UnaryEncoding:
    return UnaryEncoding(k, eps, optimized=True)


def _rappor(k: int, eps: float) -> UnaryEncoding:
    return UnaryEncoding(k, eps, optimized=False)


def _half_budget_bh(k: int, eps: float) -> BudgetedHadamard:
    """SRP-R at half of binary Hadamard's randomness, R = H2(e^eps/(e^eps + 1))/2 bits per user."""
    return BudgetedHadamard(k, eps, BinaryHadamard(2, eps).randomness_bits / 2.0)


for _name, _factory in (("GRR", RandomizedResponse), ("OUE", _unary), ("RAPPOR", _rappor), ("HR", HadamardResponse),
                        ("BH", BinaryHadamard), ("SS", SubsetSelection), ("OLH", LocalHashing),
                        ("BH-half", _half_budget_bh)):
    register_oracle(_name, _factory)
