"""Forecast scoring: ``anachron outcomes`` (docs/outcomes.md).

OUTCOME MATERIAL (it reads resolutions): never imported by a serving path.

The arithmetic on forecasts already read (standard library, no I/O):

- :mod:`anachron.forecasts.forecast`: one forecast, its checks and its
  scores (Brier, log loss), and the probability an answer states;
- :mod:`anachron.forecasts.leak_split`: each sample leaked, unverified or
  clean, and its answer-leak sources;
- :mod:`anachron.forecasts.reliability`: the reliability table (Wilson
  interval per bin);
- :mod:`anachron.forecasts.model_score`: a model's scores over its samples,
  the skill against a baseline, the leak split and inflation, each with a
  paired bootstrap CI;
- :mod:`anachron.forecasts.difficulty`: the difficulty-adjusted Brier
  (ForecastBench's two-way fixed effects);
- :mod:`anachron.forecasts.resampling`: its intervals ForecastBench's way
  (questions resampled within groups, the fit redone per resample), the Brier
  Index, p-values against a reference and first-place shares.

The command's files and outputs:

- :mod:`anachron.forecasts.reading`: the forecast, resolution and score files;
- :mod:`anachron.forecasts.report`: the files (and the bank's model cutoffs)
  joined into one report;
- :mod:`anachron.forecasts.table`: the report as the text leaderboard (the
  HTML page is :mod:`anachron.output.html.forecasts`);
- :mod:`anachron.forecasts.forecastbench`: ForecastBench's question,
  resolution and forecast sets, several rounds at once;
- :mod:`anachron.forecasts.leaderboard`: its leaderboard (``--forecastbench``):
  per question type, the Brier Index, the difficulty pool, imputation, the
  reference skill, the leak split per row and knowledge in the weights.
"""
