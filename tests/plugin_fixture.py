"""A fake installed package for the entry-point tests: a module and its ``*.dist-info`` in a folder that is
put on ``sys.path`` (importlib.metadata finds ``entry_points.txt`` there; nothing is installed)."""

from __future__ import annotations

from pathlib import Path

MODULE = "fake_markovdp_scenarios"

BODY = '''
import os
import time
from dataclasses import dataclass

import markovdp as md
from markovdp.sweeps._toy import ToyScenario
from markovdp.validation import Scenario


def pipeline(strength, eps):
    flip = [[1 - strength, strength], [strength, 1 - strength]]
    return md.RandomizedResponse(2, 1.0) >> md.FiniteKernel(flip)


SCENARIO = Scenario(name="PLUGIN-RR", theory_id="BBGG-T1", description="a plugin's own scenario",
                    grid_full={"strength": (0.1, 0.3), "eps": (0.5,)}, grid_quick={"strength": (0.2,), "eps": (0.5,)},
                    pipeline=pipeline, batch_size=1000)


@dataclass(frozen=True)
class SlowToy(ToyScenario):
    """The package's toy scenario, pausing SLOW_TOY_PAUSE seconds per batch (never changes a result)."""

    def simulate(self, point, n, rng):
        time.sleep(float(os.environ.get("SLOW_TOY_PAUSE", "0")))
        return super().simulate(point, n, rng)


SEVERAL = [SlowToy(name="SLOW-TOY"), ToyScenario(name="FAST-TOY")]
NOT_A_SCENARIO = 42
'''


def install_fake_plugin(root: Path, entries: str = "rr = {m}:SCENARIO\ntoys = {m}:SEVERAL") -> Path:
    """Write the fake package into `root` with the given ``[markovdp.scenarios]`` entries; return `root`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{MODULE}.py").write_text(BODY)
    dist = root / "fake_markovdp_plugin-0.1.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-markovdp-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[markovdp.scenarios]\n" + entries.format(m=MODULE) + "\n")
    return root
