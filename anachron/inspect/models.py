"""Keyless reference agents as Inspect model providers: ``anachron/naive`` and ``anachron/oracle``.

A model provider sees only the messages and the tool list, so both agents
read what they need from the conversation the anachron task builds: the
subject from the user message's ``Subject:`` line, the as-of date from the
system prompt's "The as-of date is YYYY-MM-DD." sentence, and the tools'
results.  No key, no network, deterministic.

- ``naive``: one search for the subject (:func:`anachron.core.reference_agent.naive_query`,
  the query of ``anachron demo``), then an answer from every result.
- ``oracle``: the same search, then it fetches the latest result whose
  *shown* date is on or before the as-of date and answers from that item
  only.  It trusts the dates the tools show: with ``date_presentation=hidden``
  it sees no date, uses no item and says so; with a shift it is misled
  exactly as far as the shift goes.

Retrieval leakage is about what the tools surfaced, not what the answer
used: the oracle's search leaks in unrestricted mode just as the naive one
does.  Each agent answers with the ``submit`` tool when it has one.
"""

from __future__ import annotations

import re
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from anachron.core.reference_agent import naive_answer, naive_query
from anachron.core.dates import known_at, parse_date
from anachron.core.errors import AnachronError, closest
from anachron.inspect.params import OneLineError

__all__ = ["AGENTS", "KeylessAgent", "parse_results"]

AGENTS = ("naive", "oracle")

_SUBJECT = re.compile(r"^Subject: (.+)$", re.MULTILINE)
_AS_OF = re.compile(r"The as-of date is ([0-9]{4}-[0-9]{2}-[0-9]{2})\.")
_FIELD = re.compile(r"^(?P<indent>- |  )(?P<key>id|date|title|snippet): (?P<value>.*)$")


def parse_results(text: str) -> list[dict[str, str]]:
    """The items of a search result as the tool renders them: id, date (if shown), title, snippet."""
    items: list[dict[str, str]] = []
    for line in text.split("\n"):
        match = _FIELD.match(line)
        if match is None:
            continue
        if match.group("indent") == "- ":
            items.append({})
        if items:
            items[-1][match.group("key")] = match.group("value")
    return items


def _shown_day(item: dict[str, str]):
    """The date a result shows, or ``None`` (no date line, ``unknown``, or not a day)."""
    try:
        return parse_date(item.get("date"))
    except ValueError:
        return None


def _text(messages: list[ChatMessage], kind: type, pattern: re.Pattern[str], what: str) -> str:
    for message in messages:
        if isinstance(message, kind):
            match = pattern.search(message.text)
            if match:
                return match.group(1)
    raise AnachronError(f"the keyless agents need the anachron task's conversation: no {what} found")


def _results(messages: list[ChatMessage], function: str) -> list[ChatMessageTool]:
    return [m for m in messages if isinstance(m, ChatMessageTool) and m.function == function]


@modelapi(name="anachron")
class KeylessAgent(ModelAPI):
    """``anachron/naive`` and ``anachron/oracle``: scripted agents, no key, no network."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if model_name not in AGENTS:
            # One line under `inspect eval` (not a traceback of 200 lines), with the likely name first.
            expected = ", ".join(f"anachron/{name}" for name in AGENTS)
            close = closest(model_name, AGENTS)  # the bare names: the shared prefix would make every name close
            hint = f"did you mean 'anachron/{close}'? " if close is not None else ""
            raise OneLineError(f"unknown keyless agent 'anachron/{model_name}': {hint}expected one of {expected}")

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        names = {tool.name for tool in tools}
        searches = _results(input, "search")
        if not searches and "search" in names:
            return self._call("search", {"query": self._query(input)}, step=1)
        if self.model_name == "naive":
            return self._answer(self._naive_answer(searches), names)
        fetches = _results(input, "fetch")
        usable = self._usable(input, searches)
        if usable and not fetches and "fetch" in names:
            return self._call("fetch", {"id_or_url": usable[-1]["id"]}, step=2)
        return self._answer(self._oracle_answer(input, usable, fetches), names)

    @staticmethod
    def _query(input: list[ChatMessage]) -> str:
        # One implementation of the naive query: the core's.
        return naive_query(_text(input, ChatMessageUser, _SUBJECT, "'Subject:' line in the user message"))

    @staticmethod
    def _naive_answer(searches: list[ChatMessageTool]) -> str:
        if not searches or searches[0].error is not None:
            return "I could not search the archive, so I have nothing to report."
        # One implementation of the naive answer: the core's (the demo's traces carry the same).
        return naive_answer([item.get("title", item["id"]) for item in parse_results(searches[0].text) if "id" in item])

    @staticmethod
    def _usable(input: list[ChatMessage], searches: list[ChatMessageTool]) -> list[dict[str, str]]:
        """Search results whose shown date is on or before the as-of date, oldest first."""
        if not searches or searches[0].error is not None:
            return []
        as_of = _text(input, ChatMessageSystem, _AS_OF, "as-of date in the system prompt")
        items = [item for item in parse_results(searches[0].text) if "id" in item]
        day = parse_date(as_of)
        usable = [item for item in items if _shown_day(item) is not None and known_at(_shown_day(item), day)]
        return sorted(usable, key=lambda item: (item["date"], item["id"]))

    @staticmethod
    def _oracle_answer(input: list[ChatMessage], usable: list[dict[str, str]], fetches: list[ChatMessageTool]) -> str:
        as_of = _text(input, ChatMessageSystem, _AS_OF, "as-of date in the system prompt")
        if not usable:
            return f"No archive item is shown as dated on or before {as_of}, so I cannot answer from the archive."
        latest = usable[-1]
        body = ""
        if fetches and fetches[0].error is None:
            document = fetches[0].text.split("\n\n", 1)[-1].rsplit("\n\n", 1)[0]  # header and budget line off
            body = " " + " ".join(document.split())
        return f"As of {as_of}, the latest item is {latest['id']} ({latest['date']}): {latest.get('title', '')}.{body}"

    def _call(self, function: str, arguments: dict[str, Any], step: int) -> ModelOutput:
        output = ModelOutput.for_tool_call(
            f"anachron/{self.model_name}", function, arguments, tool_call_id=f"{self.model_name}-{step}", content=""
        )
        return self._with_usage(output)

    def _answer(self, text: str, names: set[str]) -> ModelOutput:
        if "submit" in names:
            return self._call("submit", {"answer": text}, step=9)
        return self._with_usage(ModelOutput.from_content(f"anachron/{self.model_name}", text))

    @staticmethod
    def _with_usage(output: ModelOutput) -> ModelOutput:
        # Set usage so Inspect never counts tokens itself (that may download a tokenizer).
        output.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return output
