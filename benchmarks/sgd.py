"""NoisyProjSGD (BBGG-A1) against a plain numpy loop, in one process: ``python -m benchmarks.sgd`` (issue 13 §6:
goal >= 1.0x at d = 2).

L2-regularised logistic regression and the quadratic loss, projected on a ball, d = 2 and 10, n = 100 and 1000 (the
quadratic has no exp: the cost of the draws, the step and the projection alone). The numpy loop is the fastest
plain one found: vectorised over all runs, a loop over the n steps drawing one (runs, d) normal array per step into
a preallocated buffer, every operation in place. Rounds are interleaved (numba, then numpy, 7 times); the ratio
numpy time / numba time is taken per round, its median and range shown with the load average (the machine is
shared). "same": the simulator equals a plain numpy loop on its documented noise (tests/test_sgd.py holds it).
Numba is warmed up first (compile time is not counted).
"""

from __future__ import annotations

import itertools
import os
import time

import numpy as np
from numpy.typing import NDArray

from benchmarks.__main__ import SEED

ROUNDS = 7


def numpy_sgd(sgd, data: NDArray[np.float64], runs: int, seed: int) -> NDArray[np.float64]:
    """Logistic or quadratic loss, ball projection: x ← Π(x − η(∇ℓ(x; z_i) + σ ξ)) for all runs at once, i = 1..n,
    in place (numpy's own normals: the same law, not the same floats)."""
    from markovdp.mechanisms.losses import QuadraticLoss

    gen = np.random.default_rng(seed)
    d, eta, sigma, radius = sgd.dim, sgd.eta, sgd.sigma, sgd.projection.radius
    quadratic = isinstance(sgd.loss, QuadraticLoss)
    lam = 0.0 if quadratic else sgd.loss.regularization
    x = np.tile(sgd.x0, (runs, 1))
    noise, step, scale, margin = np.empty((runs, d)), np.empty((runs, d)), np.empty(runs), np.empty(runs)
    for z in data:
        gen.standard_normal(out=noise)
        if quadratic:
            np.subtract(x, z, out=step)
        else:  # ∇ = −y s(−y aᵀx) a + λ x, s(−m) = 1/(1 + e^m) (the margins stay small on the ball)
            np.dot(x, z[:d], out=margin)
            margin *= z[d]
            np.exp(margin, out=margin)
            margin += 1.0
            np.divide(-z[d], margin, out=margin)
            np.multiply(margin[:, None], z[:d], out=step)
            step += lam * x
        noise *= sigma
        noise += step
        noise *= eta
        x -= noise
        np.einsum("ij,ij->i", x, x, out=scale)  # Π onto the ball: x · radius / max(radius, ||x||)
        np.maximum(scale, radius * radius, out=scale)
        np.sqrt(scale, out=scale)
        np.divide(radius, scale, out=scale)
        x *= scale[:, None]
    return x


def documented_noise_check(sgd, data: NDArray[np.float64], runs: int) -> bool:
    """The simulator against tests/test_sgd.py's plain loop on the documented noise (bit for bit or 1e-12)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    try:
        from test_sgd import numpy_sgd as plain_on_documented_noise
    except ImportError:
        return False
    finally:
        sys.path.pop(0)
    return bool(np.allclose(sgd.run(data, runs, rng=1), plain_on_documented_noise(sgd, data, runs, 1), rtol=0,
                            atol=1e-12))


def bench_sgd() -> None:
    import markovdp as md
    from markovdp.mechanisms.losses import LogisticLoss, QuadraticLoss
    from markovdp.mechanisms.sgd import BLOCK, NoisyProjSGD

    rng = np.random.default_rng(SEED)
    print(f"NoisyProjSGD(loss, Ball) runs/s: numba vs the fastest plain numpy loop, load average "
          f"{os.getloadavg()[0]:.1f} (start)")
    header = (f"{'loss':>9} {'d':>3} {'n':>5} {'runs':>6} {'numba runs/s':>13} {'numpy runs/s':>13} {'x numpy':>8} "
              f"{'range':>11} {'same':>5}")
    print(header)
    print("-" * len(header))
    for name, d, n in itertools.product(("logistic", "quadratic"), (2, 10), (100, 1000)):
        ball = md.Ball(d, 1.0)
        features = rng.standard_normal((n, d))
        features /= np.maximum(1.0, np.linalg.norm(features, axis=1, keepdims=True))
        if name == "logistic":
            loss = LogisticLoss(ball, regularization=0.1, data_bound=1.0)
            data = np.column_stack([features, rng.choice([-1.0, 1.0], size=n)])
        else:
            loss, data = QuadraticLoss(ball), features
        sgd = NoisyProjSGD(loss, 0.5, 1.0, ball, np.zeros(d), n=n)
        sgd.run(data, 10, rng=0)  # warm-up: load or compile the kernel
        runs = 20_000 if n * d <= 1000 else 4_000
        numpy_sgd(sgd, data, 10, SEED)
        ratios, t_nb, t_np = [], [], []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            sgd.run(data, runs, rng=SEED)
            t_nb.append(time.perf_counter() - start)
            start = time.perf_counter()
            numpy_sgd(sgd, data, runs, SEED)
            t_np.append(time.perf_counter() - start)
            ratios.append(t_np[-1] / t_nb[-1])
        same = documented_noise_check(sgd, data, 2 * BLOCK + 5)
        r = np.array(ratios)
        print(f"{name:>9} {d:>3} {n:>5} {runs:>6} {runs / np.median(t_nb):>13.0f} {runs / np.median(t_np):>13.0f} "
              f"{np.median(r):>8.2f} {r.min():>5.2f}-{r.max():<5.2f} {str(same):>5}")
    print(f"  (x numpy = numpy time / numba time per round, median and range over {ROUNDS} interleaved rounds;\n"
          f"   load average {os.getloadavg()[0]:.1f} (end))")


def main() -> None:
    bench_sgd()


if __name__ == "__main__":
    main()
