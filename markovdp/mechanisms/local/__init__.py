"""Local mechanisms (SRP, AAC): frequency oracles, keyed mechanisms, multi-level and recoverable privacy.

- oracles: `UnaryEncoding` (RAPPOR / OUE), `HadamardResponse`, `BinaryHadamard`, `SubsetSelection`,
  `LocalHashing` (OLH) (k-ary randomized response is `markovdp.RandomizedResponse`), all `Mechanism`s; their exact
  channels, huge ones implicit (`UnaryChannel`, `SubsetChannel`, `HashedChannel`); the `FrequencyOracle` protocol
  and the registry (`register_oracle`, `make_oracle`, `oracle_names`); `frequency`: the simplex projection,
  losses and empirical frequencies; `ibu`: the iterative Bayesian update (EM) estimator.
- keys and randomness: `KeyedMechanism`, `randomness_bits`, `output_entropy_bits`, `entropy_bits`;
  `BudgetedHadamard`: binary Hadamard under a budget of R bits per user (SRP-R).
- successive refinement: `MultiLevelMechanism`, `MultiLevelHadamard`, `RecoverableMechanism`,
  `IdentifiableRecoverableMechanism`, `HadamardRecoverableMechanism`, key reuse (`sequence_channel`);
  their exact certification is in `markovdp.guarantees.srp`.
"""

from ..._moved import moved_names
from .binary_hadamard import BinaryHadamard
from .budgeted_hadamard import BudgetedHadamard, budgeted_feature_channel
from .entropy import binary_entropy, entropy_bits
from .frequency import empirical_frequencies, l1_error, l2_squared_error, linf_error, project_simplex
from .hadamard import HadamardResponse
from .ibu import ibu, ibu_estimate
from .implicit_channel import SubsetChannel, UnaryChannel
from .key_reuse import per_sample_epsilon, sequence_channel
from .keyed import KeyedMechanism, draw_keys, output_entropy_bits, randomness_bits
from .local_hashing import HashedChannel, LocalHashing
from .multilevel import MultiLevelMechanism, added_key_law, rr_key_law
from .multilevel_hadamard import MultiLevelHadamard
from .oracles import FrequencyOracle, make_oracle, oracle_names, register_oracle
from .recoverable import RecoverableMechanism, circulant, min_recoverable_randomness, min_recoverable_s, q_min
from .recoverable_hadamard import HadamardRecoverableMechanism
from .recoverable_id import IdentifiableRecoverableMechanism, identifiable_recoverable_s, recoverable_factor_bound
from .subset import SubsetSelection
from .unary import UnaryEncoding

__all__ = [
    "BinaryHadamard", "FrequencyOracle", "HadamardResponse", "HashedChannel", "KeyedMechanism", "LocalHashing",
    "MultiLevelMechanism", "RecoverableMechanism", "SubsetChannel", "SubsetSelection", "UnaryChannel",
    "UnaryEncoding", "added_key_law", "binary_entropy", "circulant", "draw_keys", "empirical_frequencies",
    "entropy_bits", "ibu", "ibu_estimate", "l1_error", "l2_squared_error", "linf_error", "make_oracle",
    "min_recoverable_randomness", "min_recoverable_s", "oracle_names", "output_entropy_bits", "per_sample_epsilon",
    "project_simplex", "q_min", "randomness_bits", "register_oracle", "rr_key_law", "sequence_channel",
    "IdentifiableRecoverableMechanism", "MultiLevelHadamard", "identifiable_recoverable_s", "recoverable_factor_bound",
    "BudgetedHadamard", "budgeted_feature_channel", "HadamardRecoverableMechanism",
]

__getattr__ = moved_names(__name__, {name: f"markovdp.guarantees.{name}" for name in ("compare_key_reuse", "KeyReuse")})
