"""Hypothesis profiles: `ci` loads itself under CI=true; `dev` is the local default."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
if not os.environ.get("CI"):
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))
