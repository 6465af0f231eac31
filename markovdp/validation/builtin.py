"""The built-in scenarios, by name, in catalogue order: the spine (`catalogue`), BBGG §4 (`catalogue_bbgg4`),
BBGG §5 (`catalogue_diffusions`), local DP and randomness (`catalogue_local`: AAC, SRP), BBGG-E2r
(`catalogue_e2r`), STD-Exact (`catalogue_exact`), BBGG-T6-1D (`catalogue_t6_1d`), noise chains on R
(`catalogue_chains`), then one module per later THEORY family (one line each below).

`markovdp.validation.all_scenarios` adds those of installed packages.
"""

from __future__ import annotations

from .catalogue import SPINE_SCENARIOS
from .catalogue_bayes import BAYES_SCENARIOS
from .catalogue_bbgg4 import BBGG4_SCENARIOS
from .catalogue_chains import CHAIN_SCENARIOS
from .catalogue_diffusions import DIFFUSION_SCENARIOS
from .catalogue_e2r import E2R_SCENARIOS
from .catalogue_exact import EXACT_SCENARIOS
from .catalogue_fano import FANO_SCENARIOS
from .catalogue_local import LOCAL_SCENARIOS
from .catalogue_public_steps import PUBLIC_STEPS_SCENARIOS
from .catalogue_srp_id import SRP_ID_SCENARIOS
from .catalogue_srp_r import SRP_R_SCENARIOS
from .catalogue_t2_finite import T2_FINITE_SCENARIOS
from .catalogue_t6_1d import T6_1D_SCENARIOS
from .catalogue_testing import TESTING_SCENARIOS
from .scenario import Scenario

CATALOGUES: tuple[tuple[Scenario, ...], ...] = (
    SPINE_SCENARIOS,
    BBGG4_SCENARIOS,
    DIFFUSION_SCENARIOS,
    LOCAL_SCENARIOS,
    E2R_SCENARIOS,
    EXACT_SCENARIOS,
    T6_1D_SCENARIOS,
    CHAIN_SCENARIOS,
    SRP_ID_SCENARIOS,  # SRP-Rec-ID, SRP-ML-HR, SRP-Rec-HR
    TESTING_SCENARIOS,  # AAC-Test, AAC-MI
    BAYES_SCENARIOS,  # AAC-Bayes
    FANO_SCENARIOS,  # AAC-Fano, AAC-LeCam-mean
    PUBLIC_STEPS_SCENARIOS,  # BBGG-PublicSteps
    SRP_R_SCENARIOS,  # SRP-R
    T2_FINITE_SCENARIOS,  # BBGG-T2-finite
)

SCENARIOS: dict[str, Scenario] = {s.name: s for catalogue in CATALOGUES for s in catalogue}

__all__ = ["SCENARIOS"]
