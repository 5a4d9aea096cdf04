"""Entry point of the ``inspect_ai`` group (pyproject.toml): registers the
keyless model providers (``anachron/naive``, ``anachron/oracle``) and the tasks
(``anachron/anachron``, ``anachron/anachron_enforced``, ``anachron/anachron_bank``) with Inspect."""

from anachron.inspect.models import KeylessAgent  # noqa: F401
from anachron.inspect.task import anachron, anachron_enforced  # noqa: F401
from anachron.inspect.bank import anachron_bank  # noqa: F401  (outcome material: registry only)
