"""A second judge for what the rules leave ``ambiguous``: any Inspect model (``--judge-model``).

Outcome material (:mod:`anachron.bank`).  Optional: needs the ``inspect``
extra, imported only here.  The rule judge stays the default and the keyless
path; a model is asked only about the responses the rules could not decide,
each on its own, with the item's question, its date D, the key and every
published value with its date.  It must answer one word (``correct``,
``incorrect``, ``refused`` or ``leaked``); any other reply leaves the
response ``ambiguous``.  Requests are made at temperature 0 and one at a
time, in item order.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Callable, Sequence

from anachron.core.errors import AnachronError
from anachron.bank.items import BankItem
from anachron.bank.judging import CORRECT, INCORRECT, LEAKED, REFUSED
from anachron.bank.values import render

__all__ = ["PROMPT", "model_judge", "plain_message"]

VERDICTS = (CORRECT, INCORRECT, REFUSED, LEAKED)
_VERDICT = re.compile(r"\b(correct|incorrect|refused|leaked)\b", re.IGNORECASE)
# Inspect words its errors for a terminal, in rich's console markup ("[bold][blue]OPENAI_API_KEY[/blue][/bold]").
_MARKUP = re.compile(r"\[/?(?:bold|italic|dim|underline|reverse|strike|red|green|blue|yellow|magenta|cyan|white|black)"
                     r"(?: (?:bold|italic|dim|underline|red|green|blue|yellow|magenta|cyan|white|black))*\]")


def plain_message(exc: BaseException, limit: int = 300) -> str:
    """*exc*'s message as one plain line: whitespace folded, rich's style tags and a leading ``ERROR:`` dropped,
    cut at *limit* characters.  Brackets that are no style (``[0.0, 8.8]``) stay.

    >>> plain_message(ValueError("ERROR: No [bold][blue]OPENAI_API_KEY[/blue][/bold] defined\\n in [0, 1]"))
    'No OPENAI_API_KEY defined in [0, 1]'
    """
    text = _MARKUP.sub("", " ".join(str(exc).split()))
    return text.removeprefix("ERROR: ").strip()[:limit]


PROMPT = """\
You grade one answer to a dated question. The system answering had to act as if today were {as_of}.

Question: {question}
Value public on {as_of}: {key}
Every published value, with its publication date:
{history}

Answer to grade:
<<<
{response}
>>>

Grade it with exactly one word:
- refused: it declines to give a value;
- leaked: it states a value, or a revision, published after {as_of} (for an item with no value public on {as_of}, any substantive answer);
- correct: it states the value public on {as_of};
- incorrect: anything else.
Reply with the one word only."""


def _prompt(item: BankItem, response: str) -> str:
    history = "\n".join(f"- {render(value, item.unit)} (published {published})" for value, published in item.values) or "- none"
    key = "none (nothing was public)" if item.answer is None else render(item.answer, item.unit)
    return PROMPT.format(as_of=item.as_of, question=item.question, key=key, history=history, response=response)


def model_judge(model: Any) -> tuple[str, Callable[[Sequence[tuple[BankItem, str]]], list[str | None]]]:
    """``(name, judge)`` for *model* (a name such as ``openai/gpt-4o-mini``, or an Inspect ``Model``).

    ``judge(pairs)`` returns, for each ``(item, response text)``, the model's
    verdict or ``None`` when its reply names none.
    """
    try:
        from inspect_ai.model import GenerateConfig, Model, get_model
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise AnachronError(f"--judge-model needs inspect-ai: pip install 'anachron[inspect]' ({exc})") from None
    try:
        resolved = model if isinstance(model, Model) else get_model(model)
    except Exception as exc:  # an unknown provider, a missing key: one line, not a traceback
        raise AnachronError(f"--judge-model {model}: {plain_message(exc)}") from None
    config = GenerateConfig(temperature=0.0)

    async def ask_all(pairs: Sequence[tuple[BankItem, str]]) -> list[str | None]:
        verdicts: list[str | None] = []
        for item, response in pairs:
            output = await resolved.generate(_prompt(item, response), config=config)
            match = _VERDICT.search(output.completion or "")
            verdicts.append(match.group(1).lower() if match else None)
        return verdicts

    def judge(pairs: Sequence[tuple[BankItem, str]]) -> list[str | None]:
        if not pairs:
            return []
        try:
            return asyncio.run(ask_all(pairs))
        except AnachronError:
            raise
        except Exception as exc:
            raise AnachronError(f"--judge-model {resolved.name}: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}") from None

    return str(resolved), judge
