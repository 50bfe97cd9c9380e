"""Timing statistics and the stopping rule, as app/timing/statistics.cpp: the median, its 95%
confidence interval (order statistics), and sampling until that interval lies within
+-max_noise of the median or max_time_s has passed."""

import math


def median_interval(samples):
    """The 95% confidence interval of the median, as app/timing/statistics.cpp: order
    statistics of ranks n/2 -+ 1.96 sqrt(n)/2, rounded outwards."""
    v = sorted(samples)
    if not v:
        return 0.0, 0.0
    n = len(v)
    reach = 1.959963984540054 * math.sqrt(n) / 2.0
    low = max(1, math.floor(n / 2.0 - reach))
    high = min(n, math.ceil(n / 2.0 + 1.0 + reach))
    return v[low - 1], v[high - 1]


def stop_reason(samples, elapsed_s, timing):
    """As app/timing/statistics.cpp: keep_sampling, converged (the median's 95% interval within
    +-max_noise of it) or time_limit."""
    n = len(samples)
    if n < timing["min_samples"]:
        return "keep_sampling"
    if n <= 256 or n % 64 == 0:
        m = median(samples)
        low, high = median_interval(samples)
        if m <= 0 or max(m - low, high - m) / m <= timing["max_noise"]:
            return "converged"
    return "time_limit" if elapsed_s >= timing["max_time_s"] else "keep_sampling"


def median(values):
    v = sorted(values)
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else 0.5 * (v[mid - 1] + v[mid])


def summarize(samples, stop, sampling_time_s):
    n = len(samples)
    mean = sum(samples) / n
    stdev = math.sqrt(sum((v - mean) ** 2 for v in samples) / (n - 1)) if n > 1 else 0.0
    return {"median_ms": median(samples), "mean_ms": mean, "stdev_ms": stdev,
            "min_ms": min(samples), "max_ms": max(samples),
            "relative_stdev": stdev / mean if mean > 0 else 0.0, "samples": n,
            "median_ci_ms": list(median_interval(samples)),
            "stop_reason": stop, "sampling_time_s": sampling_time_s, "samples_ms": samples}
