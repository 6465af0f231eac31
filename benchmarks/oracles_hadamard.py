"""Frequency oracles (k-ary RR, Hadamard response, binary Hadamard) against numpy's uniform rate, in one process:
``python -m benchmarks.oracles_hadamard``.

Rate = reports per second of ``oracle.sample(x, rng=gen)`` for n = 1e6 users at eps = 1, against ``gen.random(n)``
(numpy's uniform rate, the physical limit of a sampler that uses one uniform per report). Target (issue 8 §6):
RR and HR >= 0.1x numpy's uniform rate at k = 16 and 1024. The peer is pure-LDP's GRR (``DEClient``) and Hadamard
response client, one Python call per user, timed on 1e5 users in the same process when pure-ldp is installed
(it is not a dependency); otherwise the issue's measured peer rates are quoted. Also timed: exact certification
(`ldp_epsilon`) of a 1024-output channel, HR(k = 1000). Numba is warmed up first; each time is the best of several
repeats. The machine is small (2 cores, shared): absolute numbers move with load, ratios less so.
"""

from __future__ import annotations

import importlib.util
import os
import random
import sys
import types
from typing import Any

import numba
import numpy as np

from benchmarks.__main__ import SEED, best_of
from markovdp.guarantees.coefficients import ldp_epsilon
from markovdp.mechanisms.finite import RandomizedResponse
from markovdp.mechanisms.local.binary_hadamard import BinaryHadamard
from markovdp.mechanisms.local.hadamard import HadamardResponse

N = 10**6
N_PEER = 10**5
EPS = 1.0
TARGET = 0.1


def pure_ldp_clients(k: int) -> dict[str, Any] | None:
    """pure-LDP's GRR and HR clients (data in 1..k), or None if pure-ldp is not installed.

    Its package ``frequency_oracles/__init__`` imports scikit-learn for RAPPOR's server; the two clients do not
    need it, so the package is entered through a bare module with the same path (its ``__init__`` is skipped).
    """
    spec = importlib.util.find_spec("pure_ldp")
    if spec is None or spec.origin is None:
        return None
    name = "pure_ldp.frequency_oracles"
    if name not in sys.modules:
        package = types.ModuleType(name)
        package.__path__ = [os.path.join(os.path.dirname(spec.origin), "frequency_oracles")]
        sys.modules[name] = package
    from pure_ldp.frequency_oracles.direct_encoding import DEClient
    from pure_ldp.frequency_oracles.hadamard_response import HadamardResponseClient

    return {"GRR": DEClient(EPS, k), "HR": HadamardResponseClient(EPS, k, None)}


def bench_oracles() -> None:
    gen = np.random.default_rng(SEED)
    random.seed(SEED)  # pure-LDP draws from Python's global `random`
    t_uniform, _ = best_of(lambda: gen.random(N), 7)
    uniform = N / t_uniform
    print(f"numpy uniform rate gen.random({N:.0e}): {uniform:.3e} /s; target {TARGET}x = {TARGET * uniform:.3e} /s")
    header = f"{'oracle':>6} {'k':>5} {'reports /s':>11} {'x uniform':>10} {'target':>7} {'peer /s':>10} {'x peer':>8}"
    print(header)
    print("-" * len(header))
    for k in (16, 1024):
        x = gen.integers(0, k, N)
        peers = pure_ldp_clients(k)
        for name, oracle in (("GRR", RandomizedResponse(k, EPS)), ("HR", HadamardResponse(k, EPS)),
                             ("BH", BinaryHadamard(k, EPS))):
            oracle.sample(x[:10], rng=gen)  # compile (or load numba's cache)
            t, _ = best_of(lambda o=oracle, x=x: o.sample(x, rng=gen), 5)
            rate = N / t
            target = "-" if name == "BH" else ("ok" if rate >= TARGET * uniform else "MISS")
            peer_text = f"{'-':>10} {'-':>8}"
            if peers is not None and name in peers:
                client = peers[name]
                data = (x[:N_PEER] + 1).tolist()
                t_peer, _ = best_of(lambda c=client, d=data: [c.privatise(v) for v in d], 2)
                peer = N_PEER / t_peer
                peer_text = f"{peer:>10.3e} {rate / peer:>8.1f}"
            print(f"{name:>6} {k:>5} {rate:>11.3e} {rate / uniform:>10.3f} {target:>7} {peer_text}")
    if pure_ldp_clients(2) is None:
        print("  pure-ldp is not installed: the issue's peer rates (pure-LDP, multi-freq-ldpy, one Python call per\n"
              "  user) are GRR 1.3-2.3e6 reports/s at n = 1e6, eps = 1.")
    else:
        print(f"  peer = pure-LDP's client (DEClient for GRR, HadamardResponseClient), {N_PEER:.0e} users, one Python "
              "call each")


def bench_certification() -> None:
    oracle = HadamardResponse(1000, EPS)
    t_build, channel = best_of(lambda: HadamardResponse(1000, EPS).channel, 3)
    ldp_epsilon(channel)  # compile
    t_cert, eps = best_of(lambda: ldp_epsilon(channel), 5)
    print(f"exact certification of {oracle!r} ({channel.matrix.shape[0]} x {channel.matrix.shape[1]} channel): "
          f"ldp_epsilon {t_cert * 1e3:.1f} ms (= {eps!r}), building the channel {t_build * 1e3:.1f} ms")


def main() -> None:
    print(f"markovdp frequency-oracle benchmark: {os.cpu_count()} cpus, numba {numba.__version__}, numpy "
          f"{np.__version__}, load average {os.getloadavg()[0]:.1f}")
    print()
    bench_oracles()
    print()
    bench_certification()


if __name__ == "__main__":
    main()
