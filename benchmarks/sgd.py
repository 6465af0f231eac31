"""NoisyProjSGD (BBGG-A1) runs/s against a plain numpy loop, in one process: ``python -m benchmarks.sgd``.

L2-regularised logistic regression and the quadratic loss, projected on a ball, d = 2, 10 and n = 100, 1000
(the quadratic has no exp: the cost of the draws, the step and the projection alone). The numpy loop is
vectorised over all runs and loops over the n steps (one (runs, d) normal array per step). Also shown: draws/s of
each against numpy's own ``standard_normal`` rate in the same process (the simulator draws runs·n·d normals), and
whether the two agree bit for bit when numpy uses the simulator's blocks of runs (same seed, same order of draws).
Numba is warmed up first (compile time is not counted); each time is the best of several repeats.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.typing import NDArray

from benchmarks.__main__ import SEED, best_of


def numpy_sgd(sgd, data: NDArray[np.float64], runs: int, seed: int, block: int) -> NDArray[np.float64]:
    """Logistic or quadratic loss, ball projection: x ← Π(x − η(∇ℓ(x; z_i) + σ ξ)) for all runs of a block at once,
    i = 1..n. Sums left to right (as the compiled code) so that, with the simulator's block, results are bit for
    bit."""
    from markovdp.mechanisms.losses import QuadraticLoss

    gen = np.random.default_rng(seed)
    d, eta, sigma, radius = sgd.dim, sgd.eta, sgd.sigma, sgd.projection.radius
    quadratic = isinstance(sgd.loss, QuadraticLoss)
    lam = 0.0 if quadratic else sgd.loss.regularization
    out = np.empty((runs, d))
    for b0 in range(0, runs, block):
        m = min(block, runs - b0)
        x = np.tile(sgd.x0, (m, 1))
        for z in data:
            if quadratic:
                grad = x - z
            else:
                margin = np.zeros(m)
                for k in range(d):
                    margin = margin + z[k] * x[:, k]
                margin = margin * z[d]
                e = np.exp(-np.abs(margin))
                s = np.where(margin >= 0.0, e / (1.0 + e), 1.0 / (1.0 + e))  # s(−m), never overflowing
                grad = (-z[d] * s)[:, None] * z[:d] + lam * x
            x = x - eta * (grad + sigma * gen.standard_normal((m, d)))
            sq = np.zeros(m)
            for k in range(d):
                sq = sq + x[:, k] * x[:, k]
            far = sq > radius * radius
            x[far] *= (radius / np.sqrt(sq[far]))[:, None]
        out[b0:b0 + m] = x
    return out


def bench_sgd() -> None:
    import markovdp as md
    from markovdp.mechanisms.losses import LogisticLoss, QuadraticLoss
    from markovdp.mechanisms.sgd import BLOCK, NoisyProjSGD

    rng = np.random.default_rng(SEED)
    print("NoisyProjSGD(loss, Ball) runs/s: numba (one call, Generator inside) vs a numpy loop over i")
    header = (f"{'loss':>9} {'d':>3} {'n':>5} {'runs':>6} {'numba runs/s':>13} {'numpy runs/s':>13} {'x numpy':>8} "
              f"{'numba / normal rate':>20} {'numpy / normal rate':>20} {'same':>5}")
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
        t_nb, _ = best_of(lambda: sgd.run(data, runs, rng=SEED), 3)  # noqa: B023
        t_np, _ = best_of(lambda: numpy_sgd(sgd, data, runs, SEED, runs), 2)  # noqa: B023
        draws = runs * n * d
        t_rate, _ = best_of(lambda: np.random.default_rng(SEED).standard_normal(draws), 3)  # noqa: B023
        check = 3 * BLOCK + 5
        same = np.array_equal(sgd.run(data, check, rng=1), numpy_sgd(sgd, data, check, 1, BLOCK))
        print(f"{name:>9} {d:>3} {n:>5} {runs:>6} {runs / t_nb:>13.0f} {runs / t_np:>13.0f} {t_np / t_nb:>8.1f} "
              f"{t_rate / t_nb:>20.2f} {t_rate / t_np:>20.2f} {str(same):>5}")
    print("  (x numpy = numpy time / numba time, same runs and seed; '/ normal rate' = draws/s of that\n"
          "   implementation ÷ numpy standard_normal draws/s, measured alongside; same = bit-identical x_n\n"
          f"   when numpy uses the simulator's blocks of {BLOCK} runs)")


def bench_block() -> None:
    """The simulator's block of runs (states kept in L1 while one record serves the block), d = 10, n = 1000."""
    import markovdp as md
    from markovdp.mechanisms import _sgd_kernels
    from markovdp.mechanisms.losses import LogisticLoss

    rng = np.random.default_rng(SEED)
    d, n, runs = 10, 1000, 4096
    loss = LogisticLoss(md.Ball(d, 1.0), regularization=0.1, data_bound=1.0)
    data = np.column_stack([rng.standard_normal((n, d)) / np.sqrt(d), rng.choice([-1.0, 1.0], size=n)])[None]
    data[..., :d] /= np.maximum(1.0, np.linalg.norm(data[..., :d], axis=-1, keepdims=True))
    starts = np.zeros((1, d))
    code, parameters = md.Ball(d, 1.0).numba_form()
    print(f"simulator block size (d = {d}, n = {n}, {runs} runs): runs/s")
    for block in (1, 16, 64, 256, 4096):
        out = np.empty((runs, d))

        def call(block: int = block, out: NDArray[np.float64] = out) -> None:
            _sgd_kernels.simulate_builtin(loss.code, loss.parameters(), code, parameters, data, starts, 0.5, 1.0,
                                          block, np.random.default_rng(SEED), out)

        t, _ = best_of(call, 3)
        print(f"  block {block:>5}: {runs / t:>10.0f}")


def main() -> None:
    bench_sgd()
    print()
    bench_block()


if __name__ == "__main__":
    main()
