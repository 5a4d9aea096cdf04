"""Forecast scoring: ``anachron outcomes`` (docs/outcomes.md).

OUTCOME MATERIAL (it reads resolutions): never imported by a serving path.

- :mod:`anachron.forecasts.scoring`: the arithmetic on forecasts already read
  (Brier, log loss, reliability, the leak split, the difficulty-adjusted Brier);
- :mod:`anachron.forecasts.reading`: the forecast, resolution, score and
  model-cutoff files;
- :mod:`anachron.forecasts.report`: the files joined into one report, and its table.
"""
