"""Synchronous couplings made visible: two copies of a process on shared noise, their distance per step or time.

BBGG-T2, T4, T5 and the OU results bound privacy through a coupling of the two runs: the same noise drives both,
and the distance between the coupled states contracts — by L per step for L-Lipschitz maps (BBGG-T4: the
projection and the common noise cancel, ||Y − Y'|| <= L ||x − x'||), by (1 − 2 eta beta rho/(beta + rho))^(1/2)
per gradient step of noisy SGD (BBGG-T5, plus at most 2 eta C at a step whose records differ), by e^(−theta t)
for the OU flow (BBGG-OU: X_t − X'_t = e^(−theta t)(x − x') exactly; Euler–Maruyama with steps h gives
(1 − theta h)^k). `synchronous_coupling` runs both copies and returns the distances, so the contraction a bound
assumes can be measured. The processes it knows are a small registry (`COUPLINGS`), keyed by class.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._dispatch import KindRegistry
from .._random import RNGLike
from .._validation import check_int, check_range, check_size, fail
from ..diffusions.general import DiffusionSemigroup
from ..diffusions.simulate import root_seed, simulate
from ..mechanisms.sgd import NoisyProjSGD, SGDDifferingAt
from ..operators.algebra import Chain, Power
from ..operators.lipschitz_gaussian import LipschitzGaussianKernel, is_lipschitz_chain, sample_chain

Array = NDArray[np.float64]
Root = tuple[Any, tuple[int, ...]]


@dataclass(frozen=True)
class CoupledRun:
    """What a coupling rule returns: the states of both copies at every recorded step or time.

    `states`, `states_prime`: (n_paths, K + 1, d), index 0 the start; `axis`: "step" or "time" with its K + 1
    `coords`; `reference`: the declared contraction bound on the distance at each of them (pathwise), or None.
    """

    axis: str
    coords: Array
    states: Array
    states_prime: Array
    reference: Array | None
    reference_name: str = ""


#: Class → rule(process, x, x_prime, n_paths, root, times) -> CoupledRun.
COUPLINGS: KindRegistry[Callable[..., CoupledRun]] = KindRegistry("synchronous couplings")


def _seed(root: Root, *address: int) -> np.random.SeedSequence:
    """The seed at an address under the root (never a stateful spawn): shared by both copies."""
    return np.random.SeedSequence(root[0], spawn_key=(*root[1], *address))


def _start(name: str, x: ArrayLike, d: int, n: int) -> Array:
    """One point of R^d repeated n times."""
    point = np.atleast_1d(np.asarray(check_range(name, x, allowed="finite (not NaN or inf)"), dtype=np.float64))
    if point.ndim != 1 or point.size != d:
        raise fail(name, f"one point of R^{d} (shape ({d},))", f"shape {point.shape}")
    return np.ascontiguousarray(np.broadcast_to(point, (n, d)))


@COUPLINGS.register(DiffusionSemigroup)
def _couple_sde(process: DiffusionSemigroup, x: ArrayLike, x_prime: ArrayLike, n: int, root: Root,
                times: ArrayLike | None) -> CoupledRun:
    """`simulate` twice with the same root seed: path i gets the same normals from both starts (seeds are
    addresses), i.e. the same Brownian increments."""
    if times is None:
        raise fail("times", "increasing times > 0 at which to record the coupled SDE paths", None)
    t = np.atleast_1d(check_range("times", times, low=0.0, low_open=True, allowed="> 0 and finite"))
    if t.ndim != 1 or t.size == 0 or np.any(np.diff(t) <= 0):
        raise fail("times", "a non-empty strictly increasing 1-D array of times > 0", t.tolist())
    d = process.sde.dim
    starts, starts_prime = _start("x", x, d, n), _start("x_prime", x_prime, d, n)
    check_size("n_paths", n, 2.0 * n * (t.size + 1) * d, what="the coupled states (2 x paths x times x dim)")
    seed = _seed(root)
    runs = [simulate(process.sde, process.solver, s, t1=float(t[-1]), dt=min(process.dt, float(t[-1])), rng=seed,
                     save_at=t).values for s in (starts, starts_prime)]
    states = [np.concatenate([s[:, None], r], axis=1) for s, r in zip((starts, starts_prime), runs, strict=True)]
    return CoupledRun("time", np.concatenate([[0.0], t]), states[0], states[1], None)


def _kernels(process: Any) -> list[LipschitzGaussianKernel]:
    """The chain as a list of single Lipschitz Gaussian steps (a Power expanded)."""
    if isinstance(process, Chain):
        ops = tuple(process.operators)
    else:
        ops = tuple(process) if isinstance(process, (list, tuple)) else (process,)
    if not ops or not is_lipschitz_chain(list(ops)):
        raise fail("process", "a LipschitzGaussianKernel, a Power or Chain of them, or a list of them",
                   repr(process), TypeError)
    steps: list[LipschitzGaussianKernel] = []
    for op in ops:
        steps += [op.base] * op.r if isinstance(op, Power) else [op]
    return steps


@COUPLINGS.register(LipschitzGaussianKernel, Power, Chain, list, tuple)
def _couple_chain(process: Any, x: ArrayLike, x_prime: ArrayLike, n: int, root: Root,
                  times: ArrayLike | None) -> CoupledRun:
    """Step s of both copies by `sample_chain` with the seed at address s: point i gets the same normals."""
    steps = _kernels(process)
    d = steps[0].dim
    check_size("n_paths", n, 2.0 * n * (len(steps) + 1) * d, what="the coupled states (2 x paths x steps x dim)")
    states = np.empty((2, n, len(steps) + 1, d))
    states[0, :, 0], states[1, :, 0] = _start("x", x, d, n), _start("x_prime", x_prime, d, n)
    for s, kernel in enumerate(steps):
        for side in (0, 1):
            states[side, :, s + 1] = sample_chain((kernel,), states[side, :, s], rng=_seed(root, s)).reshape(n, d)
    factors = np.concatenate([[1.0], np.cumprod([k.lipschitz for k in steps])])
    gap = float(np.linalg.norm(states[0, 0, 0] - states[1, 0, 0]))
    return CoupledRun("step", np.arange(len(steps) + 1, dtype=np.float64), states[0], states[1], factors * gap,
                      "L_1 ... L_s ||x - x'|| (BBGG-T4: Lipschitz maps, common noise, non-expansive projection)")


def sgd_contraction(sgd: NoisyProjSGD) -> float:
    """(1 − 2 eta beta rho/(beta + rho))^(1/2): the Lipschitz constant of x ↦ x − eta ∇ℓ(x; z) for a beta-smooth,
    rho-strongly convex loss and eta <= 2/(beta + rho) (BBGG-T5's L)."""
    beta, rho = sgd.loss.smoothness, sgd.loss.strong_convexity
    return math.sqrt(max(0.0, 1.0 - 2.0 * sgd.eta * beta * rho / (beta + rho)))


@COUPLINGS.register(NoisyProjSGD, SGDDifferingAt)
def _couple_sgd(process: Any, x: ArrayLike, x_prime: ArrayLike, n: int, root: Root,
                times: ArrayLike | None) -> CoupledRun:
    """Both datasets, step by step, the noise of step s from the seed at address s (shared); x_0 shared too."""
    sgd = process.sgd if isinstance(process, SGDDifferingAt) else process
    data, other = sgd.loss.check_records(x, "x"), sgd.loss.check_records(x_prime, "x_prime")
    for name, records in (("x", data), ("x_prime", other)):
        if records.shape[0] != sgd.n:
            raise fail(name, f"n = {sgd.n} records", f"{records.shape[0]} records")
    d = sgd.dim
    check_size("n_paths", n, 2.0 * n * (sgd.n + 1) * d, what="the coupled iterates (2 x paths x steps x dim)")
    states = np.empty((2, n, sgd.n + 1, d))
    if isinstance(sgd.x0, np.ndarray):
        start = np.broadcast_to(sgd.x0, (n, d))
    else:
        start = np.asarray(sgd.x0.sample(n, rng=np.random.default_rng(_seed(root, sgd.n))), dtype=np.float64)
    states[:, :, 0] = start.reshape(n, d)
    for s in range(sgd.n):
        for side, records in enumerate((data, other)):
            states[side, :, s + 1] = sgd.advance(records[s:s + 1], states[side, :, s], rng=_seed(root, s))
    lip, jump = sgd_contraction(sgd), 2.0 * sgd.eta * sgd.loss.lipschitz
    reference = np.zeros(sgd.n + 1)
    for s in range(sgd.n):  # ||x_s − x'_s|| <= L ||x_{s−1} − x'_{s−1}|| + eta ||∇ℓ(·; z_s) − ∇ℓ(·; z'_s)||
        reference[s + 1] = lip * reference[s] + (jump if np.any(data[s] != other[s]) else 0.0)
    return CoupledRun("step", np.arange(sgd.n + 1, dtype=np.float64), states[0], states[1], reference,
                      "sum over differing records s' <= s of 2 eta C L^(s - s'), L = (1 - 2 eta beta rho/(beta + "
                      "rho))^(1/2) (BBGG-T5)")


def synchronous_coupling(process: Any, x: ArrayLike, x_prime: ArrayLike, *, n_paths: int, rng: RNGLike,
                         times: ArrayLike | None = None, confidence: float = 0.95) -> Any:
    """Two copies of `process` from x and x' on shared noise; the distance ||X_k − X'_k||_2 per step or time.

    THEORY: BBGG-T2 (the coupling), BBGG-T4, BBGG-T5, BBGG-OU (the contraction each assumes). Both copies use the
    same noise at every step (a synchronous coupling), each copy alone has the law of the process.

    Parameters
    ----------
    process : what runs, and what x, x' are:

        - a `LipschitzGaussianKernel`, a `Power` or `Chain` of them, or a list of them (`sample_chain`):
          x, x' points of R^d; step s of both copies uses the same normals. ``reference`` = L_1⋯L_s ||x − x'||.
        - a `DiffusionSemigroup` (an `SDE`, its solver and dt; `simulate` with the same seed, hence the same
          Brownian increments): x, x' points of R^d; `times` the increasing times > 0 to record. No
          ``reference`` (for OU, dX = −theta X dt + v dW, the distance is e^(−theta t) ||x − x'|| for the flow and
          (1 − theta h)^k ||x − x'|| after k Euler–Maruyama steps of size h, exactly: the noise cancels).
        - a `NoisyProjSGD` (or ``sgd.differing_at(i)``): x, x' two datasets (n, p); step s is record s, the
          same noise and x_0 for both. ``reference`` = Σ over differing records s' <= s of 2 eta C L^(s − s'),
          L = (1 − 2 eta beta rho/(beta + rho))^(1/2) (BBGG-T5).
    n_paths : coupled pairs of paths, >= 1.
    rng : an int seed, SeedSequence or Generator (seeds are addresses: pair i depends on the seed and i only).
    times : the SDE's recording times (only for a `DiffusionSemigroup`).
    confidence : level of the intervals on the mean distance, in (0, 1).

    Returns
    -------
    xarray.Dataset over ("path", "step") or ("path", "time") (index 0: the start) with ``distance`` (per pair),
    ``mean`` and its normal-approximation interval ``ci_low``, ``ci_high`` (mean ± z s/sqrt(n): approximate,
    attrs ``interval = "clt"``), ``max`` over the pairs, the states ``state`` and ``state_prime`` (path, ·, dim),
    and ``reference`` (the declared pathwise bound) where the process declares one.
    """
    rule = COUPLINGS.lookup(type(process))
    if rule is None:
        raise fail("process", "a LipschitzGaussianKernel chain, a DiffusionSemigroup or a NoisyProjSGD",
                   f"{process!r} of type {type(process).__name__}", TypeError)
    n = check_int("n_paths", n_paths, minimum=1)
    level = float(check_range("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True,
                              allowed="in (0, 1)"))
    if times is not None and not isinstance(process, DiffusionSemigroup):
        raise fail("times", "None (recording times are for a DiffusionSemigroup only)", repr(times))
    root = root_seed(rng)
    run = rule(process, x, x_prime, n, root, times)
    return _dataset(process, run, n, level, root)


def _dataset(process: Any, run: CoupledRun, n: int, level: float, root: Root) -> Any:
    import xarray as xr
    from scipy.special import ndtri

    distance = np.linalg.norm(run.states - run.states_prime, axis=2)
    mean = distance.mean(axis=0)
    half = float(ndtri(0.5 + level / 2)) * (distance.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.inf)
    axis = run.axis
    unit = "steps" if axis == "step" else "time units of the SDE"
    ds = xr.Dataset(
        {"distance": (("path", axis), distance, {"long_name": "||X - X'||_2 of one coupled pair"}),
         "mean": ((axis,), mean, {"long_name": "Monte Carlo mean of ||X - X'||_2"}),
         "ci_low": ((axis,), np.maximum(mean - half, 0.0), {"long_name": f"lower end of the {level} interval"}),
         "ci_high": ((axis,), mean + half, {"long_name": f"upper end of the {level} interval"}),
         "max": ((axis,), distance.max(axis=0), {"long_name": "largest ||X - X'||_2 over the pairs"}),
         "state": (("path", axis, "dim"), run.states, {"long_name": "X: the copy started from x"}),
         "state_prime": (("path", axis, "dim"), run.states_prime, {"long_name": "X': the copy started from x'"})},
        coords={"path": np.arange(n), axis: (axis, run.coords, {"long_name": axis, "units": unit}),
                "dim": np.arange(run.states.shape[2])},
        attrs={"process": repr(process), "coupling": "synchronous (shared noise)", "n_paths": n,
               "confidence": level, "interval": "clt", "seed_entropy": str(root[0]),
               "seed_spawn_key": str(root[1])})
    if run.reference is not None:
        ds["reference"] = ((axis,), run.reference, {"long_name": run.reference_name})
    return ds


__all__ = ["COUPLINGS", "CoupledRun", "sgd_contraction", "synchronous_coupling"]
