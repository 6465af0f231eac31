"""Noisy projected SGD over a dataset of n records, as a mechanism (BBGG-A1; its privacy: BBGG-T5, BBGG-T5opt).

x_0 ~ ξ_0; for i = 1..n: x_i = Π_W(x_{i−1} − η (∇ℓ(x_{i−1}; z_i) + Z_i)), Z_i ~ N(0, σ² I_d); the output is x_n.
Many independent runs are simulated in one numba call (`markovdp.mechanisms._sgd_kernels`), the noise drawn from
xoshiro256++ streams seeded by address: run r's noise depends only on the seed and r (blocks of `BLOCK` runs share a
stream, in the order documented there), so results are bit-identical whatever the number of runs of a call.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._random import RNGLike, as_generator
from .._validation import check_int, check_positive, check_real, fail, readonly
from ..distributions import Distribution, Normal
from ..operators.projections import Ball, Projection, no_projection
from ..pairs import Pairs, ShiftPair
from ..spaces import IncompatibleSpaces, RealSpace
from .base import Mechanism, Neighbourhood
from .losses import Loss, QuadraticLoss

#: Runs per block of the noise: each block of runs draws from its own stream (`markovdp.mechanisms._sgd_kernels`).
BLOCK = 64


def check_step(eta: float, smoothness: float, strong_convexity: float) -> float:
    """`eta` > 0 with eta (smoothness + strong_convexity) <= 2 exactly: the BBGG-T5 step-size condition.

    Checked in rational arithmetic on the floats given, so the float nearest 2/(beta + rho) is accepted only when
    it does not exceed the limit (where the bound holds); else a ValueError names `eta`, the limit and the
    largest float step allowed. `smoothness` > 0 and `strong_convexity` >= 0 must be validated by the caller.
    """
    step = check_positive("eta", eta)
    total = Fraction(smoothness) + Fraction(strong_convexity)
    if Fraction(step) * total <= 2:
        return step
    largest = 2.0 / (smoothness + strong_convexity)
    while Fraction(largest) * total > 2:
        largest = float(np.nextafter(largest, 0.0))
    raise fail("eta", f"<= 2/(smoothness + strong_convexity) = {float(2 / total)!r} (the BBGG-T5 step-size "
               f"condition, checked exactly: the largest float step is {largest!r}; smoothness = {smoothness!r}, "
               f"strong_convexity = {strong_convexity!r})", step)


@dataclass(frozen=True)
class DifferingRecord(Neighbourhood):
    """Datasets of n records that differ in record `index` only (None: in any one record), replace-one."""

    index: int | None = None

    def __post_init__(self) -> None:
        if self.index is not None:
            object.__setattr__(self, "index", check_int("index", self.index, minimum=1))

    def describe(self) -> str:
        where = "one record" if self.index is None else f"record {self.index}"
        return f"neighbours: datasets differing in {where} (replace-one)"


@dataclass(frozen=True, eq=False)
class NoisyProjSGD(Mechanism):
    """BBGG-A1: noisy projected SGD with step `eta`, gradient noise N(0, sigma² I), projection Π_W (`projection`,
    None for W = R^d) and start `x0` (a point of R^d or a `Distribution` ξ_0 on R^d), over datasets of `n`
    records — (n, p) arrays, p = ``loss.record_dim``. The output x_n is a point of R^d, d = ``loss.dim``.
    Neighbours: datasets differing in one record; ``differing_at(i)`` fixes which (the subject of BBGG-T5).

    BBGG-T5 needs ``eta <= 2/(smoothness + strong_convexity)`` of the loss; a larger step is refused. The loss's
    constants must hold at the iterates: on W for a general loss; anywhere for the built-in losses, whose one-step
    sensitivity does not depend on x (`markovdp.mechanisms.losses`).
    """

    loss: Loss
    eta: float
    sigma: float
    projection: Projection | None
    x0: Any
    n: int = field(kw_only=True)

    def __post_init__(self) -> None:
        if not isinstance(self.loss, Loss):
            raise fail("loss", "a Loss (QuadraticLoss, LogisticLoss or GradientLoss)", repr(self.loss), TypeError)
        object.__setattr__(self, "eta", check_step(self.eta, self.loss.smoothness, self.loss.strong_convexity))
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        object.__setattr__(self, "n", check_int("n", self.n, minimum=1))
        d = self.loss.dim
        if self.projection is not None:
            if not isinstance(self.projection, Projection):
                raise fail("projection", "None, Ball(d, radius) or Box(low, high)", repr(self.projection), TypeError)
            if self.projection.dim != d:
                raise IncompatibleSpaces(f"`projection` acts on R^{self.projection.dim}; the loss's parameter x "
                                         f"is in R^{d}.")
        object.__setattr__(self, "x0", _check_start(self.x0, d))
        if self.projection is not None and not isinstance(self.x0, Distribution):
            gap = float(np.max(np.abs(self.projection.project(self.x0 if d > 1 else self.x0[0]) - self.x0)))
            if gap > 1e-12 * max(1.0, float(np.max(np.abs(self.x0)))):  # BBGG-A1 starts in W
                raise fail("x0", f"a point of the projection set {self.projection!r}", repr(self.x0.tolist()))

    @property
    def dim(self) -> int:
        return self.loss.dim

    @property
    def neighbours(self) -> DifferingRecord:
        return DifferingRecord()

    @property
    def output_space(self) -> RealSpace:
        return RealSpace(self.dim)

    def differing_at(self, index: int) -> SGDDifferingAt:
        """This mechanism with neighbours the datasets differing in record `index` (1 <= index <= n): the subject
        of BBGG-T5 / BBGG-T5opt, ``certify(sgd.differing_at(i))``."""
        return SGDDifferingAt(self, index)

    def run(self, dataset: ArrayLike, runs: int, *, rng: RNGLike = None) -> NDArray[np.float64]:
        """x_n of `runs` independent runs on one dataset (an (n, p) array): shape (runs, d), one numba call."""
        data = self._records(dataset)
        return self._simulate(data[None], check_int("runs", runs, minimum=0), as_generator(rng))

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        """One x_n per dataset: `value` is one dataset (n, p) → shape (d,), or a stack (m, n, p) → (m, d);
        for d = 1 the last axis is dropped, as for every law on R^1."""
        arr = np.asarray(check_real("value", value), dtype=np.float64)
        if arr.ndim not in (2, 3):
            raise fail("value", f"one dataset (n, {self.loss.record_dim}) or a stack (m, n, "
                       f"{self.loss.record_dim})", f"shape {arr.shape}")
        stack = arr if arr.ndim == 3 else arr[None]
        data = np.stack([self._records(one) for one in stack]) if stack.shape[0] else stack
        out = self._simulate(np.ascontiguousarray(data), stack.shape[0], as_generator(rng))
        if self.dim == 1:
            out = out[:, 0]
        return out if arr.ndim == 3 else out[0]

    def output(self, value: Any) -> Normal:
        """The exact law of x_n on dataset `value` where it is known in closed form: the quadratic loss without
        projection, x0 a point or a `Normal` (x_n is then linear in the noise, see `exact_sgd_outputs`)."""
        return self._output(value, "dataset")

    def _output(self, value: Any, name: str) -> Normal:
        reason = self._not_linear()
        if reason is not None:
            raise NotImplementedError(f"The law of {self!r} has no closed form: {reason}.")
        data = self._records(value, name)
        q = 1.0 - self.eta
        start = self.x0.mean if isinstance(self.x0, Normal) else self.x0
        mean = q**self.n * np.asarray(start, dtype=np.float64).reshape(-1) + self._weights() @ data
        return Normal(mean, self._spread())

    def _weights(self) -> NDArray[np.float64]:
        """η (1−η)^(n−i) for i = 1..n: the weight of record i (and of the noise Z_i) in x_n when it is linear."""
        return self.eta * (1.0 - self.eta) ** np.arange(self.n - 1, -1, -1, dtype=np.float64)

    def _spread(self) -> float:
        """The standard deviation of each coordinate of x_n when it is linear."""
        weights = self._weights()
        start = (1.0 - self.eta) ** self.n * self.x0.sigma if isinstance(self.x0, Normal) else 0.0
        return math.sqrt(self.sigma**2 * float(weights @ weights) + start**2)

    def dominating_pairs(self) -> ShiftPair | Pairs:
        """Where x_n is linear (see `output`): the pair of `differing_at(n)`, the index with the largest weight."""
        return self.differing_at(self.n).dominating_pairs()

    def _not_linear(self) -> str | None:
        if not isinstance(self.loss, QuadraticLoss):
            return f"the loss is {type(self.loss).__name__}, not QuadraticLoss"
        if self.projection is not None:
            return f"the iterates are projected onto {self.projection!r}"
        if isinstance(self.x0, Distribution) and not isinstance(self.x0, Normal):
            return f"x0 is {type(self.x0).__name__}, not a point or a Normal"
        return None

    def _records(self, dataset: ArrayLike, name: str = "dataset") -> NDArray[np.float64]:
        data = self.loss.check_records(dataset, name)
        if data.shape[0] != self.n:
            raise fail(name, f"n = {self.n} records", f"{data.shape[0]} records")
        return data

    def advance(self, records: ArrayLike, starts: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        """The BBGG-A1 updates with `records` (an (m, p) array, m >= 0) from each run's own start (`starts`, shape
        (runs, d)): shape (runs, d). The noise of run r depends on `rng` and r only (the blocks of `run`), so two
        calls with the same seed share it: the synchronous coupling of two datasets
        (`markovdp.guarantees.synchronous_coupling`)."""
        data = self.loss.check_records(records, "records")
        d = self.dim
        begin = np.asarray(check_real("starts", starts), dtype=np.float64)
        if begin.ndim != 2 or begin.shape[1] != d:
            raise fail("starts", f"a (runs, {d}) array of start points", f"shape {begin.shape}")
        return self._steps(data[None], begin, begin.shape[0], as_generator(rng))

    def _simulate(self, data: NDArray[np.float64], runs: int, gen: np.random.Generator) -> NDArray[np.float64]:
        """x_n of `runs` runs; data: (1 or runs, n, p). Four words of `gen` seed the noise streams first
        (`_sgd_kernels.block_states`: a run's noise depends on them and on the run's index only), then x0 ~ ξ_0."""
        return self._steps(data, None, runs, gen)

    def _steps(self, data: NDArray[np.float64], starts: NDArray[np.float64] | None, runs: int,
               gen: np.random.Generator) -> NDArray[np.float64]:
        """The updates with data (1 or runs, m, p) from `starts` (runs, d), or from x0 ~ ξ_0 when None."""
        from . import _sgd_kernels

        d = self.dim
        out = np.empty((runs, d))
        if runs == 0:
            return out
        states = _sgd_kernels.block_states(gen, runs, BLOCK)
        if starts is None and isinstance(self.x0, Distribution):
            starts = np.ascontiguousarray(self.x0.sample(runs, rng=gen), dtype=np.float64).reshape(runs, d)
        elif starts is None:
            starts = np.array(self.x0.reshape(1, d))  # writable, as every array the compiled kernel takes
        starts = np.require(starts, dtype=np.float64, requirements=["C", "W"])
        code, parameters = no_projection() if self.projection is None else self.projection.numba_form()
        data = np.require(data, dtype=np.float64, requirements=["C", "W"])
        if self.loss.code:
            kernel = _sgd_kernels.builtin_kernel(self.loss.code, code, d)
            kernel(self.loss.parameters(), parameters, data, starts, self.eta, self.sigma, BLOCK, states, out)
        else:
            _sgd_kernels.simulate_user(self.loss.gradient, code, parameters, data, starts, self.eta, self.sigma,
                                       BLOCK, states, out)
        return out

    def __repr__(self) -> str:
        x0 = self.x0 if isinstance(self.x0, Distribution) else self.x0.tolist()
        return (f"NoisyProjSGD({self.loss!r}, eta={self.eta!r}, sigma={self.sigma!r}, "
                f"projection={self.projection!r}, x0={x0!r}, n={self.n}, neighbours={self.neighbours!r})")


def _check_start(x0: Any, d: int) -> Any:
    """ξ_0: a `Distribution` on R^d, or a point of R^d stored as a read-only (d,) vector."""
    if isinstance(x0, Distribution):
        if x0.space != RealSpace(d):
            raise IncompatibleSpaces(f"`x0` is a law on {x0.space.describe()}; the loss's parameter x is in R^{d}.")
        return x0
    point = np.atleast_1d(np.asarray(check_real("x0", x0), dtype=np.float64))
    if point.ndim != 1:
        raise fail("x0", f"a point of R^{d} or a Distribution on R^{d}", f"shape {point.shape}")
    if point.size != d:
        raise IncompatibleSpaces(f"`x0` is a point of R^{point.size}; the loss's parameter x is in R^{d}.")
    return readonly(point)


@dataclass(frozen=True, eq=False)
class SGDDifferingAt(Mechanism):
    """`sgd` with neighbours the datasets that differ in record `index` (1 <= index <= n) only: the mechanism
    BBGG-T5 and BBGG-T5opt bound, per index. Built by ``sgd.differing_at(index)``."""

    sgd: NoisyProjSGD
    index: int

    def __post_init__(self) -> None:
        if not isinstance(self.sgd, NoisyProjSGD):
            raise fail("sgd", "a NoisyProjSGD", repr(self.sgd), TypeError)
        n = self.sgd.n
        if isinstance(self.index, (bool, np.bool_)) or not isinstance(self.index, numbers.Integral):
            raise fail("index", f"an integer in [1, n] = [1, {n}]", self.index, TypeError)
        if not 1 <= self.index <= n:
            raise fail("index", f"an integer in [1, n] = [1, {n}]", self.index)
        object.__setattr__(self, "index", int(self.index))

    @property
    def neighbours(self) -> DifferingRecord:
        return DifferingRecord(self.index)

    @property
    def output_space(self) -> RealSpace:
        return self.sgd.output_space

    def output(self, value: Any) -> Normal:
        return self.sgd.output(value)

    def sample(self, value: ArrayLike, *, rng: RNGLike = None) -> NDArray[np.float64]:
        return self.sgd.sample(value, rng=rng)

    def run(self, dataset: ArrayLike, runs: int, *, rng: RNGLike = None) -> NDArray[np.float64]:
        return self.sgd.run(dataset, runs, rng=rng)

    def dominating_pairs(self) -> ShiftPair | Pairs:
        """Where x_n is linear (`NoisyProjSGD.output`): (N(0, s² I), N(Δ e_1, s² I)) with s the output's sigma and
        Δ = η |1 − η|^(n − index) diam W the largest shift of its mean when record `index` changes (records lie
        in the loss's domain W, which attains its diameter). NotImplementedError otherwise.

        The mean shifts fill η |1 − η|^(n − index) (W − W). For a ball W that is a whole ball, so the pair is a
        `ShiftPair` and stays exact through kernels that need the worst direction of a ball (an affine Gaussian
        kernel); for a box it is not, so the pair is a plain `Pairs` (exact for the output itself, not pushed)."""
        sgd = self.sgd
        reason = sgd._not_linear()
        if reason is not None:
            raise NotImplementedError(f"{self!r} declares no dominating pairs: {reason}.")
        d = sgd.dim
        sigma = sgd._spread()
        shift = abs(float(sgd._weights()[self.index - 1])) * sgd.loss.lipschitz  # C = diam W for this loss
        origin = np.zeros(d) if d > 1 else 0.0
        shifted = np.eye(d)[0] * shift if d > 1 else shift
        noise, moved = Normal(origin, sigma), Normal(shifted, sigma)
        if isinstance(sgd.loss.domain, Ball):
            return ShiftPair(noise, moved)
        return Pairs(((noise, moved),))

    def __repr__(self) -> str:
        return f"{self.sgd!r}.differing_at({self.index})"


def exact_sgd_outputs(sgd: NoisyProjSGD, dataset: ArrayLike, other: ArrayLike) -> tuple[Normal, Normal]:
    """The exact laws of x_n on two datasets, for the quadratic loss without projection (BBGG-A1 made linear):

    x_n = (1−η)^n x_0 + η Σ_i (1−η)^(n−i) z_i − η Σ_i (1−η)^(n−i) Z_i, so each output is N(m, s² I) with the same
    s² = η² σ² Σ_{j<n} (1−η)^(2j) (+ (1−η)^(2n) s_0² for x_0 ~ N(m_0, s_0² I)) and means that differ by
    η Σ_i (1−η)^(n−i) (z_i − z'_i). Feed the pair to `markovdp.hockey_stick` / `markovdp.renyi`.
    """
    if not isinstance(sgd, NoisyProjSGD):
        raise fail("sgd", "a NoisyProjSGD", repr(sgd), TypeError)
    return sgd._output(dataset, "dataset"), sgd._output(other, "other")


__all__ = ["DifferingRecord", "NoisyProjSGD", "SGDDifferingAt", "exact_sgd_outputs"]
