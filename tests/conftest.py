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
