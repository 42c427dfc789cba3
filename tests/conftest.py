import numpy as np
import pytest

import distcfr


@pytest.fixture(scope="session")
def kuhn():
    return distcfr.load_game("kuhn")


@pytest.fixture(scope="session")
def leduc():
    return distcfr.load_game("leduc")


def first_action_table(strategy_like) -> np.ndarray:
    probs = np.zeros_like(strategy_like)
    probs[..., 0] = 1.0
    return probs


@pytest.fixture
def ray_local():
    """The test process's private embedded Ray (3 logical CPUs; each pytest-xdist worker has its
    own), started on first use and ended at the end of the session by its own handle."""
    from distcfr.distributed.runtime import start_embedded

    start_embedded(num_cpus=3)
    import ray

    yield ray


@pytest.fixture(scope="session", autouse=True)
def _end_ray_at_session_end():
    yield
    import sys

    if "ray" in sys.modules and sys.modules["ray"].is_initialized():
        sys.modules["ray"].shutdown()
