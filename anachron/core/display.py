"""Notebook displays of core objects, rendered from outside the core.

The core decides the figures, not how a page shows them, and imports
nothing outside itself: a core class that a notebook shows as HTML defines
``_repr_html_`` as :func:`render_html` of itself, and the renderer is
registered from outside with :func:`register_html` (:mod:`anachron.output.html`
registers its renderers when it is imported, and :mod:`anachron.output.results`
imports it).

The rule of the lookup: the renderer registered for the object's class, or
else for the nearest class it inherits from (its method resolution order);
with none, :func:`render_html` gives ``None``, which a notebook takes as
"no HTML form" and shows ``repr`` instead.  Registering a class again
replaces its renderer.  A class may be named by its dotted path
(``"anachron.bank.run.BankRun"``) instead of the class itself, so that a
renderer can be registered without importing the class's package (the
output side never imports the bank: :mod:`anachron.timelock.quarantine`).

>>> class Figure:
...     def _repr_html_(self):
...         return render_html(self)
>>> Figure()._repr_html_() is None
True
>>> register_html(Figure, lambda figure: "<b>figure</b>")
>>> Figure()._repr_html_()
'<b>figure</b>'
>>> register_html(f"{__name__}.Figure", lambda figure: "<i>by name</i>")
>>> Figure()._repr_html_()
'<i>by name</i>'
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["register_html", "render_html"]

_RENDERERS: dict[str, Callable[[Any], str]] = {}


def register_html(cls: type | str, render: Callable[[Any], str]) -> None:
    """Show instances of *cls* (a class or its dotted path), and of its subclasses, as ``render(obj)``."""
    _RENDERERS[cls if isinstance(cls, str) else _path(cls)] = render


def _path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def render_html(obj: object) -> str | None:
    """The HTML of *obj* by the renderer registered for its class; ``None`` when there is none."""
    for cls in type(obj).__mro__:
        render = _RENDERERS.get(_path(cls))
        if render is not None:
            return render(obj)
    return None
