"""The divergence registry: rules keyed by the pair of law types (or kinds), and the dispatcher.

Each divergence falls back closed form → finite sum → quadrature (DESIGN §6). A rule returns NaN for
values it does not cover; the dispatcher then tries the next method.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._dispatch import Key, PairRegistry
from ..._validation import check_choice, check_eps, check_order, fail
from ...distributions import Distribution
from ...spaces import IncompatibleSpaces

#: Accepted values of ``method`` (besides None = best available).
METHODS: tuple[str, ...] = ("closed_form", "finite_sum", "quadrature")

Array = NDArray[np.float64]
#: A rule maps (mu, nu, parameter) to values; the parameter is a 1-D array of eps (hockey-stick) or
#: alpha (Rényi), or None (KL). NaN entries mean "not covered here": the dispatcher tries the next method.
Rule = Callable[[Distribution, Distribution, Any], Array]

_NAMES = {"hockey_stick": "the hockey-stick divergence", "kl": "the KL divergence",
          "renyi": "the Rényi divergence"}
_RULES: dict[str, PairRegistry[tuple[str, Rule]]] = {name: PairRegistry(name) for name in _NAMES}
#: The last resort per divergence: quadrature on R^1 (filled in by `quadrature`).
FALLBACKS: dict[str, Rule] = {}


class NoRule(Exception):
    """A registered rule does not cover this case (the message says why); try the next method."""


def register(divergence: str, method: str, *pairs: tuple[Key, Key]) -> Callable[[Rule], Rule]:
    """Register `rule` as the `method` for `divergence` on each ``(type or kind, type or kind)`` in `pairs`."""
    check_choice("divergence", divergence, tuple(_NAMES))
    check_choice("method", method, METHODS[:2])

    def decorate(rule: Rule) -> Rule:
        for left, right in pairs:
            _RULES[divergence].add(left, right, (method, rule))
        return rule

    return decorate


# ---------------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------------

def hockey_stick(mu: Distribution, nu: Distribution, *, eps: ArrayLike,
                 method: str | None = None) -> float | Array:
    """E_{e^eps}(mu || nu) = ∫ [p_mu − e^eps p_nu]_+ = sup_E mu(E) − e^eps nu(E), in [0, 1].

    THEORY: Notation (hockey-stick, D_inf), STD-GaussHS, STD-LapHS.

    Parameters
    ----------
    mu, nu : Distribution
        Two laws on the same space.
    eps : float or array
        Privacy level(s) in nats, ``>= 0``; ``inf`` gives D_inf, the mass of the part of mu singular
        w.r.t. nu (the gamma → ∞ limit; BBGG footnote 3). Arrays broadcast: a delta(eps) curve.
    method : {None, "closed_form", "finite_sum", "quadrature"}
        None = best available.

    Returns
    -------
    float for scalar `eps`, else an array of the shape of `eps`.

    Raises
    ------
    ValueError
        NaN or negative `eps`, an unknown `method`, laws on different spaces (`IncompatibleSpaces`).
    NotImplementedError
        No method covers the pair (e.g. Gaussians of different sigmas on R^d, d > 1).
    """
    eps_arr = np.asarray(check_eps("eps", eps, allow_inf=True), dtype=np.float64)
    out = _evaluate("hockey_stick", mu, nu, eps_arr.ravel(), method)
    return _shaped(np.clip(out, 0.0, 1.0), eps_arr)


def tv(mu: Distribution, nu: Distribution, *, method: str | None = None) -> float:
    """TV(mu, nu) = E_1(mu || nu) = ½ ∫ |p_mu − p_nu|, in [0, 1]. THEORY: Notation (E_1 = TV).

    Raises as `hockey_stick`.
    """
    return float(hockey_stick(mu, nu, eps=0.0, method=method))


def kl(mu: Distribution, nu: Distribution, *, method: str | None = None) -> float:
    """KL(mu || nu) = ∫ p_mu log(p_mu / p_nu) in nats, in [0, inf]; inf where mu is not ≪ nu.

    THEORY: Notation (alpha → 1 limit of R_alpha). Raises as `hockey_stick`.
    """
    return float(max(_evaluate("kl", mu, nu, None, method)[0], 0.0))


def renyi(mu: Distribution, nu: Distribution, *, alpha: ArrayLike,
          method: str | None = None) -> float | Array:
    """R_alpha(mu || nu) = 1/(alpha − 1) log ∫ (dmu/dnu)^alpha dnu in nats, in [0, inf].

    THEORY: Notation (R_alpha, R_inf = log ess sup dmu/dnu), STD-GaussRenyi, STD-LapRenyi, BBGG-E2.

    Parameters
    ----------
    alpha : float or array
        Order(s) in (1, inf]; arrays broadcast (an eps(alpha) RDP curve).
    mu, nu, method
        As in `hockey_stick`.

    Returns
    -------
    float for scalar `alpha`, else an array of the shape of `alpha`; +inf where mu is not ≪ nu.

    Raises
    ------
    ValueError
        NaN or `alpha` <= 1 (alpha = 1 is `kl`), an unknown `method`, laws on different spaces.
    NotImplementedError
        No method covers the pair.
    """
    alpha_arr = np.asarray(check_order("alpha", alpha), dtype=np.float64)
    out = _evaluate("renyi", mu, nu, alpha_arr.ravel(), method)
    return _shaped(np.maximum(out, 0.0), alpha_arr)


def _shaped(values: Array, like: Array) -> float | Array:
    values = values.reshape(like.shape)
    return float(values) if like.ndim == 0 else values


# ---------------------------------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------------------------------

def _check_pair(mu: Any, nu: Any) -> None:
    for name, law in (("mu", mu), ("nu", nu)):
        if not isinstance(law, Distribution):
            raise fail(name, "a Distribution", type(law).__name__, TypeError)
    if mu.space != nu.space:
        raise IncompatibleSpaces(
            f"`nu` must be a law on the same space as `mu` ({mu.space.describe()}); "
            f"got a law on {nu.space.describe()}.")


def _evaluate(divergence: str, mu: Distribution, nu: Distribution, par: Array | None,
              method: str | None) -> Array:
    _check_pair(mu, nu)
    if method is not None and (not isinstance(method, str) or method not in METHODS):
        allowed = ", ".join(repr(m) for m in METHODS)
        raise fail("method", f"None or one of {allowed}", repr(method))
    n = 1 if par is None else par.size
    out = np.full(n, np.nan)
    reasons: list[str] = []
    found = _RULES[divergence].lookup(type(mu), type(nu))
    if found is None:
        reasons.append("no closed form or finite sum is registered for this pair")
    elif method is not None and method != found[0]:
        reasons.append(f"its exact method is {found[0]!r}")
    else:
        try:
            with np.errstate(over="ignore", under="ignore"):
                out = np.array(found[1](mu, nu, par), dtype=np.float64).reshape(n)
        except NoRule as exc:
            reasons.append(str(exc))
        else:
            if np.isnan(out).any():
                reasons.append(f"its {found[0].replace('_', ' ')} does not cover every requested value")
    todo = np.isnan(out)
    if todo.any() and method in (None, "quadrature"):
        try:
            out[todo] = FALLBACKS[divergence](mu, nu, None if par is None else par[todo])
        except NoRule as exc:
            reasons.append(str(exc))
    if np.isnan(out).any():
        how = "" if method is None else f" with method={method!r}"
        raise NotImplementedError(
            f"Cannot compute {_NAMES[divergence]} between {type(mu).__name__} and {type(nu).__name__} "
            f"on {mu.space.describe()}{how}: {'; '.join(reasons)}.")
    return out

