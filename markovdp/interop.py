"""Composition through Google's dp_accounting: privacy loss distributions (PLDs) from dominating pairs.

markovdp computes one run's exact privacy; dp_accounting composes many runs. A PLD of a pair (mu, nu) has
delta(eps) = E_{e^eps}(mu || nu) and composes by convolution, so ``to_pld(M).self_compose(n)`` accounts for
n independent runs of M on the same pair of neighbouring inputs (THEORY: Notation, STD-PLD). Every pair whose
exact profile markovdp knows is converted (docs/composition.md):

- finite laws: their probability mass functions (`from_two_probability_mass_functions`);
- Gaussians of one covariance, in any dimension (the Gaussian mechanism and its pipelines through Gaussian and
  affine Gaussian kernels, the OU mechanism): the Gaussian PLD with standard deviation 1 and sensitivity the
  Mahalanobis distance of the means, certified upward (STD-GaussHS);
- Laplace laws of one scale: `from_laplace_mechanism` (STD-LapHS);
- any other pair with an exact hockey-stick divergence in the registry, both ways (a ``closed_form`` or
  ``finite_sum`` rule of `markovdp.register_divergence`, e.g. `LaplaceSum`): the pessimistic connect-the-dots
  PLD of its profile on the loss grid (STD-PLD), so a pair that registers its divergence exports with no more code.

By default every PLD is pessimistic: its delta, and the delta of its compositions, is >= the exact one. Needs the
optional extra ``markovdp[accounting]`` (dp-accounting >= 0.4), imported only here.

Several pairs: composition does not commute with the max over neighbouring pairs (the worst pair of one
run need not be the worst of n runs), so no single PLD stands for a mechanism with several neighbouring
pairs. `to_plds` returns one PLD per pair (a finite mechanism's pairs {i, j} carry both directions, as
dp_accounting's remove/add PLDs); compose each and take the max delta. `to_pld` returns the one PLD when
there is one pair, or the pair chosen by ``pair=``, and raises otherwise.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ._profiles import invert_profile
from ._validation import check_memory, check_positive, check_work, fail
from .distributions import Categorical, Distribution, Laplace, MultivariateNormal, Normal
from .divergences.exact import hockey_stick
from .mechanisms.base import Mechanism
from .pairs import PairSet, RowPairs
from .pairs_gaussian import GaussianBallPair, forward_solve

#: Key of a PLD in `to_plds`: the input pair (i, j) of a finite mechanism (both directions when both are
#: neighbours), else the position of the pair in the mechanism's dominating pairs.
PairKey = tuple[int, int] | int


def to_pld(mechanism: Mechanism, *, pair: PairKey | None = None, value_discretization_interval: float = 1e-4,
           pessimistic_estimate: bool = True) -> Any:
    """The dp_accounting `PrivacyLossDistribution` of a mechanism or pipeline with one dominating pair.

    Parameters
    ----------
    mechanism : Mechanism
        A mechanism or pipeline ``M >> K`` whose `dominating_pairs` map exactly (see the module).
    pair : (i, j) or int, optional
        Which pair, when there are several: an input pair of a finite mechanism (its PLD covers (i, j) and,
        if they are neighbours, (j, i)), or a position in the dominating pairs. Keys as in `to_plds`.
    value_discretization_interval : float, default 1e-4
        dp_accounting's grid of privacy-loss values, in nats, > 0.
    pessimistic_estimate : bool, default True
        Round privacy losses up, so every delta of the PLD (and of its compositions) is >= the exact one.

    Raises
    ------
    ValueError
        Several pairs and no `pair`, or a `pair` that is not one of them.
    NotImplementedError
        A pair with no exact hockey-stick divergence (the message names the laws and what is missing); no known
        dominating pairs; ``pessimistic_estimate=False`` for a pair discretised by connect-the-dots.
    ImportError
        dp_accounting is not installed (``pip install markovdp[accounting]``).
    """
    plds = to_plds(mechanism, value_discretization_interval=value_discretization_interval,
                   pessimistic_estimate=pessimistic_estimate)
    if pair is None:
        if len(plds) == 1:
            return next(iter(plds.values()))
        raise fail("pair", f"one of the {len(plds)} pairs {sorted(plds, key=str)} (no single PLD dominates "
                   "them all: compose each of to_plds(...) and take the max delta)", "None")
    key = _key(pair)
    if key not in plds:
        raise fail("pair", f"one of the pairs {sorted(plds, key=str)}", repr(pair))
    return plds[key]


def to_plds(mechanism: Mechanism, *, value_discretization_interval: float = 1e-4,
            pessimistic_estimate: bool = True) -> dict[PairKey, Any]:
    """One dp_accounting PLD per dominating pair of `mechanism`, keyed as in `to_pld`.

    The max over the returned PLDs of ``pld.get_delta_for_epsilon(eps)`` is the exact profile (rounded up,
    when pessimistic) of one run; of ``pld.self_compose(n)``, that of n runs on the same neighbouring inputs.
    """
    if not isinstance(mechanism, Mechanism):
        raise TypeError(f"`mechanism` must be a Mechanism or a pipeline `M >> K`; got {type(mechanism).__name__}.")
    interval = float(check_positive("value_discretization_interval", value_discretization_interval))
    if not isinstance(pessimistic_estimate, (bool, np.bool_)):
        raise fail("pessimistic_estimate", "True or False", repr(pessimistic_estimate), TypeError)
    pld = _dp_accounting()
    options = {"value_discretization_interval": interval, "pessimistic_estimate": bool(pessimistic_estimate)}
    pairs = mechanism.dominating_pairs()
    if isinstance(pairs, RowPairs):
        return _row_plds(pld, pairs, options)
    if isinstance(pairs, GaussianBallPair):  # its ratio carries the rounding of every push (its laws do not)
        return {0: _gaussian_pld(pld, pairs.ratio, options)}
    return {n: _pair_pld(pld, mu, nu, options) for n, (mu, nu) in enumerate(_pairs_of(pairs))}


def _dp_accounting() -> Any:
    try:
        from dp_accounting.pld import privacy_loss_distribution
    except ImportError as exc:
        raise ImportError("markovdp.interop needs dp_accounting: pip install 'markovdp[accounting]'.") from exc
    return privacy_loss_distribution


def _key(pair: Any) -> PairKey:
    if isinstance(pair, (int, np.integer)) and not isinstance(pair, bool):
        return int(pair)
    try:
        i, j = (int(v) for v in pair)
    except (TypeError, ValueError):
        raise fail("pair", "an input pair (i, j) or a pair position n", repr(pair), TypeError) from None
    return (i, j)


def _pairs_of(pairs: PairSet) -> list[tuple[Distribution, Distribution]]:
    return list(pairs)


def _log_pmf(probs: np.ndarray) -> dict[int, float]:
    """{outcome: log mass} over the support (dp_accounting reads a missing outcome as mass 0)."""
    return {int(y): math.log(float(probs[y])) for y in np.flatnonzero(probs > 0)}


def _row_plds(pld: Any, pairs: RowPairs, options: dict[str, Any]) -> dict[PairKey, Any]:
    """One PLD per unordered input pair {i, j}: remove = (row i, row j), add = (row j, row i) when both
    ordered pairs are neighbours; a lone direction (i, j) is a symmetric PLD of (row i, row j)."""
    ordered = {(int(i), int(j)) for i, j in pairs.index}
    out: dict[PairKey, Any] = {}
    for i, j in sorted(ordered):
        both = (j, i) in ordered
        if both and j < i:
            continue
        upper, lower = _log_pmf(pairs.matrix[i]), _log_pmf(pairs.matrix[j])
        # dp_accounting: delta = Σ_o [mu_upper(o) − e^eps mu_lower(o)]_+, i.e. E(upper || lower).
        out[(i, j)] = pld.from_two_probability_mass_functions(upper, lower, symmetric=not both, **options)
    return out


def _pair_pld(pld: Any, mu: Distribution, nu: Distribution, options: dict[str, Any]) -> Any:
    """The PLD of E(mu || nu): dp_accounting's own constructor where the pair is one of its mechanisms, else the
    connect-the-dots PLD of the pair's exact profile."""
    if isinstance(mu, Categorical) and isinstance(nu, Categorical):
        return pld.from_two_probability_mass_functions(_log_pmf(np.asarray(mu.probs)),
                                                       _log_pmf(np.asarray(nu.probs)), symmetric=True, **options)
    ratio = _gaussian_ratio(mu, nu)
    if ratio is not None:
        return _gaussian_pld(pld, ratio, options)
    if isinstance(mu, Laplace) and isinstance(nu, Laplace) and mu.scale == nu.scale:
        # STD-LapHS: Lap(a, b) vs Lap(a + D, b) depends on |D| only; the losses lie in [−D/b, D/b].
        shift = abs(float(nu.loc) - float(mu.loc))
        if shift == 0.0:
            return _identity(pld, options)
        _check_grid(2.0 * shift / float(mu.scale), options)
        return pld.from_laplace_mechanism(float(mu.scale), sensitivity=shift,
                                          use_connect_dots=options["pessimistic_estimate"], **options)
    return _connect_the_dots(pld, mu, nu, options)


# ----------------------------------------------------------------------------------- Gaussians of one covariance
def _gaussian_ratio(mu: Distribution, nu: Distribution) -> float | None:
    """The Mahalanobis distance ||Σ^(−1/2) (m_nu − m_mu)|| of two Gaussians of one covariance Σ, rounded up (never
    below the truth); None for any other pair. STD-GaussHS: the pair's PLD is that of N(0, 1) vs N(ratio, 1).

    Normals of one sigma: (s / sigma) ||v / s|| with v = m_nu − m_mu and s = max |v_i| (no underflow or overflow in
    the squares), raised by (d + 6) u (u = 2^-53) and one ulp: the difference, the scaling, the squares, the sum, the
    square root and the two products add at most (d/2 + 5) u. MultivariateNormals: `_mahalanobis`.
    """
    if isinstance(mu, Normal) and isinstance(nu, Normal):
        if mu.sigma != nu.sigma or mu.mean.shape != nu.mean.shape:
            return None
        diff = np.atleast_1d(np.asarray(nu.mean, dtype=np.float64) - np.asarray(mu.mean, dtype=np.float64))
        scale = float(np.max(np.abs(diff)))
        if scale == 0.0:
            return 0.0
        ratio = scale / float(mu.sigma) * math.sqrt(float(np.sum(np.square(diff / scale))))
        return float(np.nextafter(ratio * (1.0 + (diff.size + 6) * 2.0**-53), math.inf))
    if isinstance(mu, MultivariateNormal) and isinstance(nu, MultivariateNormal):
        if mu.mean.shape != nu.mean.shape or not np.array_equal(mu.cov, nu.cov):
            return None
        return _mahalanobis(mu.mean, nu.mean, mu.cov)
    return None


def _mahalanobis(m_mu: Any, m_nu: Any, cov: Any) -> float:
    """||L⁻¹ (m_nu − m_mu)|| (cov = L Lᵀ), certified upward by `GaussianBallPair.ratio` (the Cholesky factor and the
    solve), with the rounding of the difference of the means as its image error: fl(a − b) = (a − b)(1 + θ),
    |θ| <= u, so ||L⁻¹ (b_true − b)|| <= u/(1 − u) || |L⁻¹| |b| || (2u taken)."""
    diff = np.atleast_1d(np.asarray(m_nu, dtype=np.float64) - np.asarray(m_mu, dtype=np.float64))
    if not diff.any():
        return 0.0
    base = GaussianBallPair(cov, diff[:, None], 1.0)
    inverse = np.abs(forward_solve(base.cholesky, np.eye(diff.size)))
    error = 2.0**-52 * float(np.linalg.norm(inverse @ np.abs(diff)))
    return GaussianBallPair(cov, diff[:, None], 1.0, image_error=error).ratio


def _gaussian_pld(pld: Any, ratio: float, options: dict[str, Any]) -> Any:
    """dp_accounting's Gaussian PLD of N(0, 1) vs N(ratio, 1) (its losses N(±ratio²/2, ratio²), tails cut at
    e^-50 of mass, which it adds to the infinite loss when pessimistic)."""
    if ratio == 0.0:
        return _identity(pld, options)
    _check_grid(ratio * ratio + 2.0 * _GAUSS_TAIL_Z * ratio, options)
    # connect-the-dots is pessimistic only: dp_accounting falls back to privacy buckets (with a warning) otherwise
    return pld.from_gaussian_mechanism(1.0, sensitivity=ratio, use_connect_dots=options["pessimistic_estimate"],
                                       **options)


def _identity(pld: Any, options: dict[str, Any]) -> Any:
    return pld.identity(options["value_discretization_interval"], options["pessimistic_estimate"])


#: |z| of dp_accounting's Gaussian truncation (log mass -50): the losses span about ratio² + 2 z ratio.
_GAUSS_TAIL_Z = 10.0
#: Bytes per point of a loss grid while a PLD is built (float arrays, and dp_accounting's {loss: mass} dict).
_BYTES_PER_POINT = 256
#: Elementary steps charged per point of a profile evaluated by a registry rule: `LaplaceSum`'s rule (a Python loop
#: with a root search) measured 0.15-0.6 ms a point, 1e4-3e4 steps at the work cap's rate (1e11 steps in at most
#: half an hour); 1e5 keeps a refused grid under ten minutes.
_STEPS_PER_PROFILE_POINT = 1e5


def _check_grid(span: float, options: dict[str, Any], *, profile: bool = False) -> None:
    """Refuse a loss grid of width `span` (nats) whose points would not fit in the memory cap (or, with `profile`,
    whose exact profile values would take more than the work cap), naming `value_discretization_interval`."""
    interval = options["value_discretization_interval"]
    points = span / interval + 1.0
    what = f"the privacy-loss grid ({span:.6g} nats wide)"
    check_memory("value_discretization_interval", interval, points * _BYTES_PER_POINT, what=what)
    if profile:
        check_work("value_discretization_interval", interval, points * _STEPS_PER_PROFILE_POINT,
                   what=f"the exact profile at every point of {what}")


# -------------------------------------------------------------------- any pair with an exact profile: connect the dots
#: Profile mass left to the ends of the loss grid: the top end is taken where delta(eps) <= delta(inf) + TAIL_MASS
#: (the rest, delta(eps_top), becomes the mass of the infinite loss), the bottom end likewise from the reversed pair.
TAIL_MASS = 2.0**-60


def _connect_the_dots(pld: Any, mu: Distribution, nu: Distribution, options: dict[str, Any]) -> Any:
    """The pessimistic connect-the-dots PLD (THEORY: STD-PLD) of (mu, nu) on the grid eps_k = k h, k_lo <= k <= k_hi:
    delta_k = E_{e^eps_k}(mu || nu) from the registry's exact rule, and for eps < 0 (gamma = e^eps < 1) from the
    reversed pair, E_gamma(mu || nu) = 1 − gamma + gamma E_{1/gamma}(nu || mu). Its hockey-stick curve interpolates
    these values linearly in gamma, above the convex exact curve, so it dominates the pair (and its compositions)."""
    if not options["pessimistic_estimate"]:
        raise NotImplementedError(
            f"to_pld(pessimistic_estimate=False) for the pair ({type(mu).__name__}, {type(nu).__name__}): its PLD is "
            "built by connect-the-dots, which is pessimistic only (optimistic PLDs exist for finite, Gaussian and "
            "Laplace pairs).")
    forward, backward = _exact_profile(mu, nu), _exact_profile(nu, mu)
    h = options["value_discretization_interval"]
    ends = [(profile, *_tail_end(profile)) for profile in (forward, backward)]
    _check_grid(ends[0][2] + ends[1][2], options, profile=True)  # inf (no end found) refuses here
    top, bottom = (_grid_index(profile, floor, end, h) for profile, floor, end in ends)
    eps = np.arange(-bottom, top + 1) * h
    deltas = np.empty(eps.shape)
    up = eps >= 0.0
    deltas[up] = forward(eps[up])
    down = eps[~up]  # E_gamma(mu || nu) = 1 − gamma + gamma E_{1/gamma}(nu || mu), each term >= 0
    deltas[~up] = -np.expm1(down) + np.exp(down) * backward(-down)
    deltas = np.minimum(deltas, 1.0)
    from dp_accounting.pld import pld_pmf

    pmf = pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap(h, -bottom, top, deltas)
    return pld.PrivacyLossDistribution(pmf)


def _exact_profile(mu: Distribution, nu: Distribution) -> Callable[[np.ndarray], np.ndarray]:
    """eps -> E_{e^eps}(mu || nu) (eps >= 0, 1-D) by the registry's exact rule for the pair; NotImplementedError
    naming the laws when there is none (quadrature is not exact, so it does not count)."""
    reasons = []
    for method in ("closed_form", "finite_sum"):
        try:
            hockey_stick(mu, nu, eps=np.zeros(1), method=method)
        except NotImplementedError as exc:
            reasons.append(str(exc))
            continue
        return functools.partial(_profile, mu, nu, method)
    raise NotImplementedError(
        f"No exact dp_accounting PLD for the pair ({type(mu).__name__}, {type(nu).__name__}): to_pld needs the "
        f"exact hockey-stick divergence of the pair in both directions, from a 'closed_form' or 'finite_sum' rule "
        f"registered with markovdp.register_divergence('hockey_stick', ...) on ({type(mu).__name__}, "
        f"{type(nu).__name__}). {'; '.join(r for r in reasons if 'its exact method is' not in r)}")


def _profile(mu: Distribution, nu: Distribution, method: str, eps: np.ndarray) -> np.ndarray:
    return np.asarray(hockey_stick(mu, nu, eps=eps, method=method), dtype=np.float64)


def _tail_end(profile: Callable[[np.ndarray], np.ndarray]) -> tuple[float, float]:
    """(floor, eps) with floor = profile(inf) + TAIL_MASS and eps the least with profile(eps) <= floor (the profile
    is non-increasing; `invert_profile`)."""
    floor = float(profile(np.array([math.inf]))[0]) + TAIL_MASS
    return floor, invert_profile(lambda e: float(profile(np.array([e]))[0]), floor)


def _grid_index(profile: Callable[[np.ndarray], np.ndarray], floor: float, eps: float, h: float) -> int:
    """The least k >= eps / h with profile(k h) <= floor (k h may round below eps: then one step more)."""
    k = math.ceil(eps / h)
    while float(profile(np.array([k * h]))[0]) > floor:
        k += 1
    return k


__all__ = ["TAIL_MASS", "PairKey", "to_pld", "to_plds"]
