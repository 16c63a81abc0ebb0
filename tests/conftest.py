"""Hypothesis profiles: `ci` loads itself under CI=true; `dev` is the local default."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
if not os.environ.get("CI"):
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


# Under pytest-xdist (`make test`) each worker takes whole files in collection order, so a long
# file collected last leaves one worker busy while the other waits: the all-claims mutation run
# (about 3 minutes, a module fixture) is collected first. Tests do not depend on their order.
_FIRST = ("test_selection_independence.py",)


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=lambda item: 0 if item.path.name in _FIRST else 1)  # stable: the rest keep their order
