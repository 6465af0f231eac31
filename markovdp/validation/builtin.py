"""The built-in scenarios, by name: the spine (`catalogue`), BBGG §4 (`catalogue_bbgg4`), BBGG §5
(`catalogue_diffusions`), then local DP and randomness (`catalogue_local`: AAC, SRP), then BBGG-E2r
(`catalogue_e2r`), then STD-Exact (`catalogue_exact`), then BBGG-T6-1D (`catalogue_t6_1d`), then
noise chains on R (`catalogue_chains`), then BBGG-T2-finite (`catalogue_t2_finite`).

`markovdp.validation.all_scenarios` adds those of installed packages.
"""

from __future__ import annotations

from .catalogue import SPINE_SCENARIOS
from .catalogue_bbgg4 import BBGG4_SCENARIOS
from .catalogue_chains import CHAIN_SCENARIOS
from .catalogue_diffusions import DIFFUSION_SCENARIOS
from .catalogue_e2r import E2R_SCENARIOS
from .catalogue_exact import EXACT_SCENARIOS
from .catalogue_local import LOCAL_SCENARIOS
from .catalogue_t2_finite import T2_FINITE_SCENARIOS
from .catalogue_t6_1d import T6_1D_SCENARIOS
from .scenario import Scenario

SCENARIOS: dict[str, Scenario] = {
    s.name: s for s in (*SPINE_SCENARIOS, *BBGG4_SCENARIOS, *DIFFUSION_SCENARIOS, *LOCAL_SCENARIOS,
                        *E2R_SCENARIOS, *EXACT_SCENARIOS, *T6_1D_SCENARIOS, *CHAIN_SCENARIOS,
                        *T2_FINITE_SCENARIOS)
}

__all__ = ["SCENARIOS"]
