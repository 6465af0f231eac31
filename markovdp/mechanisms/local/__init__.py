"""Local mechanisms (SRP, AAC): frequency oracles, keyed mechanisms, multi-level and recoverable privacy.

- oracles: `UnaryEncoding` (RAPPOR / OUE), `HadamardResponse`, `BinaryHadamard`, `SubsetSelection` (k-ary
  randomized response is `markovdp.RandomizedResponse`); their exact channels, huge ones implicit
  (`UnaryChannel`, `SubsetChannel`); `frequency`: the simplex projection, losses and empirical frequencies.
- keys and randomness: `KeyedMechanism`, `randomness_bits`, `output_entropy_bits`, `entropy_bits`.
- successive refinement: `MultiLevelMechanism`, `RecoverableMechanism`, key reuse (`sequence_channel`);
  their exact certification is in `markovdp.guarantees.srp`.
"""

from ..._moved import moved_names
from .binary_hadamard import BinaryHadamard
from .entropy import binary_entropy, entropy_bits
from .frequency import empirical_frequencies, l1_error, l2_squared_error, linf_error, project_simplex
from .hadamard import HadamardResponse
from .implicit_channel import SubsetChannel, UnaryChannel
from .key_reuse import per_sample_epsilon, sequence_channel
from .keyed import KeyedMechanism, draw_keys, output_entropy_bits, randomness_bits
from .multilevel import MultiLevelMechanism, added_key_law, rr_key_law
from .recoverable import RecoverableMechanism, circulant, min_recoverable_randomness, min_recoverable_s, q_min
from .subset import SubsetSelection
from .unary import UnaryEncoding

__all__ = [
    "BinaryHadamard", "HadamardResponse", "KeyedMechanism", "MultiLevelMechanism", "RecoverableMechanism",
    "SubsetChannel", "SubsetSelection", "UnaryChannel", "UnaryEncoding", "added_key_law", "binary_entropy",
    "circulant", "draw_keys", "empirical_frequencies", "entropy_bits", "l1_error",
    "l2_squared_error", "linf_error", "min_recoverable_randomness", "min_recoverable_s", "output_entropy_bits",
    "per_sample_epsilon", "project_simplex", "q_min", "randomness_bits", "rr_key_law", "sequence_channel",
]

__getattr__ = moved_names(__name__, {name: f"markovdp.guarantees.{name}" for name in ("compare_key_reuse", "KeyReuse")})
