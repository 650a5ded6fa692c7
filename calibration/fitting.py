"""Small, explicit fits with their goodness kept: what every fitted quantity in a profile carries.

Each fit returns its parameters *and* a ``FitQuality`` (samples, R², relative error); too few
samples is not an error — the caller keeps the prior (roofline or default) and a warning is
recorded in the profile, so a thin trace never crashes calibration or silently invents numbers.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import optimize, stats

log = logging.getLogger(__name__)

MIN_SAMPLES = 5


@dataclass
class FitQuality:
    quantity: str
    samples: int
    method: str
    r2: float | None = None
    median_abs_rel_error: float | None = None
    warning: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None and v != ""}


def too_few(quantity: str, samples: int, prior: str) -> FitQuality:
    message = f"{quantity}: {samples} sample(s) < {MIN_SAMPLES}; kept the {prior} prior"
    log.warning(message)
    return FitQuality(quantity, samples, "prior", warning=message)


def linear_fit(
    x: np.ndarray, y: np.ndarray, quantity: str, nonneg: bool = True
) -> tuple[float, float, FitQuality]:
    """Least squares y = a + b x; with ``nonneg`` a negative slope is clamped to 0 (refit a)."""
    if len(x) < 2 or np.ptp(x) == 0:
        a = float(np.median(y))
        pred = np.full_like(y, a)
        return a, 0.0, fit_quality(quantity, y, pred, "median")
    res = stats.linregress(x, y)
    a, b = float(res.intercept), float(res.slope)
    if nonneg and b < 0:
        a, b = float(np.median(y)), 0.0
    if nonneg and a < 0:
        a = 0.0
        b = float(np.sum(x * y) / np.sum(x * x))
    return a, b, fit_quality(quantity, y, a + b * x, "linear least squares")


def robust_nonneg_fit(design: np.ndarray, y: np.ndarray, quantity: str) -> tuple[np.ndarray, FitQuality]:
    """y ~ design @ coef with coef >= 0, under a soft-L1 loss.

    The traces come from a shared machine: a few requests that met a burst of someone else's
    load take twice as long. Plain least squares follows that tail (and then over-predicts the
    typical request, i.e. the medians the targets are about); the soft-L1 loss treats residuals
    beyond ~10% of the typical value linearly, so the fit follows the bulk.
    """
    start, _ = optimize.nnls(design, y)
    scale = 0.1 * float(np.median(np.abs(y))) or 1e-9
    result = optimize.least_squares(
        lambda c: design @ c - y, start, bounds=(0.0, np.inf), loss="soft_l1", f_scale=scale
    )
    coef = np.asarray(result.x, float)
    return coef, fit_quality(quantity, y, design @ coef, "non-negative robust (soft-L1) least squares")


def fit_quality(quantity: str, y: np.ndarray, pred: np.ndarray, method: str) -> FitQuality:
    ss_res = float(np.sum((y - pred) ** 2))
    ss_tot = float(np.sum((y - np.mean(y)) ** 2))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else None
    rel = np.abs(pred - y) / np.maximum(np.abs(y), 1e-12)
    return FitQuality(quantity, len(y), method, r2=r2, median_abs_rel_error=float(np.median(rel)))


def variation(samples: np.ndarray) -> float:
    """The samples' coefficient of variation (standard deviation / mean; 0 when there is no
    spread to speak of): what a jittered simulation draws each such time with."""
    mean = float(np.mean(samples)) if len(samples) else 0.0
    return float(np.std(samples, ddof=1) / mean) if len(samples) > 1 and mean > 0 else 0.0


def lognormal_fit(values: np.ndarray, quantity: str) -> tuple[float, float, FitQuality]:
    """Median and shape (sigma of log) of a positive sample; quality from a KS test's statistic."""
    v = values[np.isfinite(values) & (values > 0)]
    logs = np.log(v)
    median, sigma = float(np.exp(np.mean(logs))), float(np.std(logs))
    q = FitQuality(quantity, len(v), "lognormal (log-moments)")
    if sigma > 0 and len(v) >= MIN_SAMPLES:
        ks = stats.kstest(logs, "norm", args=(np.mean(logs), sigma))
        q.r2 = None
        q.median_abs_rel_error = float(ks.statistic)  # KS distance stands in for the error here
        q.method += f", KS D={ks.statistic:.3f}"
    return median, max(sigma, 1e-3), q
