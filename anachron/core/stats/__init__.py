"""Statistics: the paired comparison of two run modes and its building blocks.

Standard library only, deterministic, and free of I/O.

- :func:`compare_modes` / :class:`ModeComparison` -- the paired comparison
  (mean reduction, paired bootstrap CI, exact sign test; docs/metrics.md);
- :func:`sign_test` -- the exact two-sided sign test (:mod:`.signtest`);
- :func:`bootstrap_means`, :func:`percentile`, :func:`binomial`,
  :func:`resampling_method` -- the exact percentile bootstrap (:mod:`.bootstrap`);
- :func:`wilson_interval` -- the Wilson score interval of a proportion;
- :func:`holm` -- Holm's step-down adjustment of p-values.
"""

from anachron.core.stats.bootstrap import binomial, bootstrap_means, percentile, resampling_method
from anachron.core.stats.holm import holm
from anachron.core.stats.paired import ModeComparison, compare_modes
from anachron.core.stats.signtest import sign_test
from anachron.core.stats.wilson import Z95, wilson_interval

__all__ = [
    "ModeComparison",
    "Z95",
    "binomial",
    "bootstrap_means",
    "compare_modes",
    "holm",
    "percentile",
    "resampling_method",
    "sign_test",
    "wilson_interval",
]
