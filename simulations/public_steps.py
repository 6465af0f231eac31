"""Public steps after noisy SGD on a strongly convex problem, as the dimension d grows (BBGG-PublicSteps).

The problem: the quadratic loss ℓ(x; z) = ||x − z||²/2 on W = the unit ball of R^d (beta = rho = 1, C = diam W = 2),
records uniform in W, NoisyProjSGD with eta = 0.5 (so L² = 1 − 2 eta beta rho/(beta + rho) = 1/2) over n private
records, then m public records (the same noisy projected update). The noise is sigma_d = s0/sqrt(d): the norm of
the noise added per step, eta sigma_d sqrt(d) = eta s0, does not grow with d — the scaling under which the seed's
"Θ(log d) public steps" is stated (keeping the optimisation error of the order of noise-free SGD's; the seed
gives no proof of that part). What is measured, per d:

- ``m_t5``, ``m_t5opt``: `public_steps_needed` — the least m with the per-index RDP slope of the LAST private
  record (i = n, the worst index: every record then meets the target) below ``target``, by BBGG-T5 / T5opt.
  Derived: A = 2 C²/sigma_d² = 2 C² d/s0², so m ≈ ln(A (1 − q)/target)/ln(1/q) (T5opt) grows by ln(d)/ln(1/q)
  — one step per doubling of d here — and T5 by about twice that (printed: the fitted slope in ln d).
- ``distance_mean``, ``distance_max`` and ``distance_bound``: the synchronous coupling of the two runs that differ
  in record n (`synchronous_coupling`, shared noise): ||x_{n+m} − x'_{n+m}|| after the m public steps, against
  the contraction BBGG-T5 assumes, 2 eta C L^m (always above; here the quadratic contracts by 1 − eta < L).
- ``excess_noisy`` (± ``excess_noisy_se``) and ``excess_noise_free``: the excess empirical loss
  F(x) − min F = ||x − x̂||²/2 of the final iterate (x̂ the mean of the n + m records), for the noisy runs
  (Monte Carlo, `NoisyProjSGD.run`) and for the same steps without noise (numpy); ``excess_ratio`` their ratio.
  This measures, for this problem and these seeds only, whether the noise costs a d-independent factor.

Nothing here proves the Θ(log d) claim: the first column follows from the bound's closed form; the last columns
are measurements at the listed d. Run: ``python -m simulations.public_steps [--quick] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import markovdp as md
from markovdp.guarantees import public_steps_needed, synchronous_coupling

DIMS = (1, 4, 16, 64, 256, 1024)
QUICK_DIMS = (1, 16, 256)
N_PRIVATE, ETA, S0, TARGET = 20, 0.5, 1.0, 0.05
SEED = 20261205
#: Coupled pairs (the distance is nearly deterministic here; the states of both copies are kept: pairs x steps x d)
COUPLED_PAIRS = 200


def records(d: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """n records uniform in the unit ball of R^d."""
    g = rng.standard_normal((n, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True) * rng.uniform(0.0, 1.0, (n, 1)) ** (1.0 / d)


def noise_free(data: np.ndarray) -> np.ndarray:
    """The same projected steps without noise: x_i = Π_W(x_{i−1} − eta (x_{i−1} − z_i)), x_0 = 0."""
    x = np.zeros(data.shape[1])
    for z in data:
        x = x - ETA * (x - z)
        x /= max(1.0, float(np.linalg.norm(x)))
    return x


def row(d: int, runs: int) -> dict[str, float]:
    sigma = S0 / math.sqrt(d)
    ball = md.Ball(d, 1.0)
    constants = {"lipschitz": 2.0, "smoothness": 1.0, "strong_convexity": 1.0, "eta": ETA, "sigma": sigma,
                 "n": N_PRIVATE, "index": N_PRIVATE}
    m5 = public_steps_needed(TARGET, **constants, theorem_id="BBGG-T5")
    m = public_steps_needed(TARGET, **constants, theorem_id="BBGG-T5opt")
    rng = np.random.default_rng([SEED, d])
    data = records(d, N_PRIVATE + m, rng)
    other = data.copy()
    other[N_PRIVATE - 1] = -data[N_PRIVATE - 1] / np.linalg.norm(data[N_PRIVATE - 1])  # record n moved across W
    sgd = md.NoisyProjSGD(md.QuadraticLoss(ball), ETA, sigma, ball, np.zeros(d), n=N_PRIVATE + m)
    coupled = synchronous_coupling(sgd, data, other, n_paths=COUPLED_PAIRS, rng=np.random.SeedSequence([SEED, d, 1]))
    centre = data.mean(axis=0)
    finals = sgd.run(data, runs, rng=np.random.default_rng([SEED, d, 2]))
    excess = 0.5 * ((finals - centre) ** 2).sum(axis=1)
    free = 0.5 * float(((noise_free(data) - centre) ** 2).sum())
    return {"d": d, "sigma": sigma, "m_t5": m5, "m_t5opt": m,
            "distance_mean": float(coupled["mean"][-1]), "distance_max": float(coupled["max"][-1]),
            "distance_bound": float(coupled["reference"][-1]),
            "excess_noisy": float(excess.mean()), "excess_noisy_se": float(excess.std(ddof=1) / math.sqrt(runs)),
            "excess_noise_free": free, "excess_ratio": float(excess.mean()) / free}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"d in {QUICK_DIMS}, 400 runs")
    parser.add_argument("--out", help="also write the table as netCDF to this file")
    args = parser.parse_args(argv)
    dims, runs = (QUICK_DIMS, 400) if args.quick else (DIMS, 4000)
    rows = [row(d, runs) for d in dims]
    print(f"quadratic loss on the unit ball, eta = {ETA}, L^2 = 1/2, n = {N_PRIVATE} private records, sigma = "
          f"{S0}/sqrt(d), target RDP slope {TARGET} for record n (the worst index)")
    print(f"{'d':>5} {'m T5':>5} {'m T5opt':>8} {'dist mean':>10} {'dist max':>10} {'2 eta C L^m':>12} "
          f"{'excess noisy':>18} {'noise-free':>11} {'ratio':>7}")
    for r in rows:
        print(f"{r['d']:>5} {r['m_t5']:>5} {r['m_t5opt']:>8} {r['distance_mean']:>10.3e} {r['distance_max']:>10.3e} "
              f"{r['distance_bound']:>12.3e} {r['excess_noisy']:>9.3e} ± {r['excess_noisy_se']:.1e} "
              f"{r['excess_noise_free']:>11.3e} {r['excess_ratio']:>7.2f}")
    log_d = np.log([r["d"] for r in rows])
    for key, predicted in (("m_t5", 1.0 / math.log(1.0 / math.sqrt(0.5))), ("m_t5opt", 1.0 / math.log(2.0))):
        slope = float(np.polyfit(log_d, [r[key] for r in rows], 1)[0])
        print(f"slope of {key} in ln d: {slope:.3f} (the closed form's slope for large A/target: {predicted:.3f})")
    if args.out:
        import xarray as xr

        table = xr.Dataset({k: ("d", [r[k] for r in rows]) for k in rows[0] if k != "d"},
                           coords={"d": [r["d"] for r in rows]}, attrs={"eta": ETA, "s0": S0, "target": TARGET,
                                                                        "n_private": N_PRIVATE, "runs": runs})
        table.to_netcdf(args.out)


if __name__ == "__main__":
    main()
