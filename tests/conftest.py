import os

from hypothesis import HealthCheck, settings

# Property tests are deterministic in CI: derandomized, no example database, no deadline (numba
# compiles on first use).
settings.register_profile(
    "markovdp", deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "markovdp"))
