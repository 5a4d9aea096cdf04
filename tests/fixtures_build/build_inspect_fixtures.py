"""Build the Inspect logs of tests/data/importers/inspect/ with Inspect itself, offline.

    python tests/fixtures_build/build_inspect_fixtures.py [OUT_DIR]

A small task that is not one of Anachron's runs on Inspect's ``mockllm``
model, scripted with ``ModelOutput``s (``usage`` set on each: without it
mockllm counts tokens with tiktoken, which downloads its encoding).  The
scenario of the other importer fixtures: as of 2023-01-01, will Cygnus
Robotics list by March 2023 (it priced its IPO on 2023-02-09).

``foreign.eval`` (no ``as_of`` in the sample's metadata, but a ``cutoff``: score it with ``--as-of`` or
``--as-of-field metadata.cutoff``):

1. ``web_search`` and ``fetch`` in one turn.  ``web_search`` is Inspect's own
   (``web_search("tavily")``); its HTTP client gets an ``httpx.MockTransport``
   that answers Tavily's search endpoint with a response of Tavily's published
   shape (``query``, ``answer``, ``images``, ``results[]`` of ``title``, ``url``,
   ``content``, ``score``, ``published_date``, ``response_time``), and a dummy
   ``TAVILY_API_KEY``.  Inspect parses it into a ``ContentText`` whose
   ``citations`` are ``UrlCitation``s and drops ``published_date``.  Three
   items: a Reuters story of 2023-02-09 (after T), the filing page of
   2022-12-15, an undated profile.  ``fetch`` (the task's tool) returns the
   filing page's HTML; a second ``fetch`` (a missing page) raises ``ToolError``.
2. ``days_between``, a local tool.
3. A provider-side web search recorded as ``ContentToolUse`` (``tool_type``
   ``web_search``; its result in the JSON shape Inspect's Anthropic provider
   writes, a list of ``web_search_result``s) returning one undated page.
4. A last ``generate(tool_calls="none")``: the answer, with a ``bash`` call
   (``curl``) that never runs, so the log holds no result for it.

True figures (``--as-of 2023-01-01``) are asserted by tests/importers/test_inspect_logs.py.

``compacted.eval``: the same run, its ``messages`` then cut to the first (a solver
``forget``, as a compaction leaves them): every call and result is read from the
events (``model`` and ``tool``), the same figures.

``stated.eval``: one sample whose metadata states ``as_of`` 2023-01-01, answered with no tool.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "data" / "importers" / "inspect"
INSPECT_VERSION = "0.3.285"

FILING = "https://www.cygnus-robotics.example/ir/2022/12/15/s1-filing"
MISSING = "https://www.cygnus-robotics.example/ir/2023/prospectus"
HTML = (
    "<html><head><title>Cygnus Robotics files S-1</title></head><body>"
    "<p>Cygnus Robotics filed its registration statement on December 15, 2022.</p></body></html>"
)


def _task():
    from inspect_ai import Task, task
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate, solver, use_tools
    from inspect_ai.tool import ToolError, tool, web_search

    @tool
    def fetch():
        async def execute(url: str):
            """Fetch a web page.

            Args:
                url: the page's URL.
            """
            if url != FILING:
                raise ToolError(f"HTTP 404 for {url}")  # Inspect records it as the tool message's error
            return HTML

        return execute

    @tool
    def days_between():
        async def execute(start: str, end: str):
            """Days between two ISO dates.

            Args:
                start: the first date.
                end: the second date.
            """
            import datetime

            return str((datetime.date.fromisoformat(end) - datetime.date.fromisoformat(start)).days)

        return execute

    @task
    def foreign():
        return Task(
            dataset=[Sample(id="cygnus-listing", input="As of 2023-01-01: will Cygnus Robotics list by March 2023?",
                            metadata={"cutoff": "2023-01-01"})],
            solver=[use_tools(web_search("tavily"), fetch(), days_between()), generate(tool_calls="loop"), generate(tool_calls="none")],
        )

    @solver
    def forget():
        async def solve(state, generate):
            state.messages = state.messages[:1]  # what a compaction leaves: the turns live on in the events only
            return state

        return solve

    @task
    def compacted():
        return Task(
            dataset=[Sample(id="cygnus-listing", input="As of 2023-01-01: will Cygnus Robotics list by March 2023?")],
            solver=[use_tools(web_search("tavily"), fetch(), days_between()), generate(tool_calls="loop"), generate(tool_calls="none"),
                    forget()],
        )

    @task
    def stated():
        return Task(
            dataset=[Sample(id="stated-1", input="Will Cygnus list?", metadata={"as_of": "2023-01-01"})],
            solver=[generate()],
        )

    return foreign(), compacted(), stated()


# Tavily's search response (its API reference), with the publish dates Inspect does not keep.
TAVILY_RESPONSE = {
    "query": "cygnus robotics ipo",
    "answer": None,
    "images": [],
    "results": [
        {"title": "Cygnus Robotics prices IPO", "url": "https://www.reuters.example/markets/2023/02/09/cygnus-robotics-prices-ipo",
         "content": "Cygnus priced its IPO at $18.", "score": 0.91, "published_date": "Thu, 09 Feb 2023 14:00:00 GMT"},
        {"title": "Cygnus Robotics files S-1", "url": FILING, "content": "Cygnus filed its S-1.", "score": 0.88,
         "published_date": "Thu, 15 Dec 2022 12:00:00 GMT"},
        {"title": "About Cygnus", "url": "https://www.cygnus-robotics.example/about",
         "content": "Cygnus builds warehouse robots.", "score": 0.52},
    ],
    "response_time": 0.42,
}


@contextlib.contextmanager
def _tavily_stub():
    """Every ``httpx.AsyncClient`` made meanwhile answers Tavily's endpoint with :data:`TAVILY_RESPONSE`."""
    import httpx

    def answer(request):
        assert request.url.host == "api.tavily.com", request.url
        return httpx.Response(200, json=TAVILY_RESPONSE)

    made = httpx.AsyncClient.__init__

    def init(self, *args, **kwargs):
        kwargs.setdefault("transport", httpx.MockTransport(answer))
        made(self, *args, **kwargs)

    saved = os.environ.get("TAVILY_API_KEY")
    os.environ["TAVILY_API_KEY"] = "offline-stub"
    httpx.AsyncClient.__init__ = init
    try:
        yield
    finally:
        httpx.AsyncClient.__init__ = made
        if saved is None:
            del os.environ["TAVILY_API_KEY"]
        else:
            os.environ["TAVILY_API_KEY"] = saved


def _outputs():
    from inspect_ai.model import ChatMessageAssistant, ContentText, ModelOutput, ModelUsage
    from inspect_ai._util.content import ContentToolUse

    usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)

    def calls(*pairs):
        out = ModelOutput.for_tool_call("mockllm/model", pairs[0][0], pairs[0][1], tool_call_id=pairs[0][2])
        message = out.choices[0].message
        from inspect_ai.tool import ToolCall

        message.tool_calls = [ToolCall(id=i, function=f, arguments=a) for f, a, i in pairs]
        out.usage = usage
        return out

    provider_search = ContentToolUse(
        tool_type="web_search", id="srvtoolu_1", name="web_search",
        arguments=json.dumps({"query": "cygnus robotics listing plans"}),
        result=json.dumps([{"type": "web_search_result", "url": "https://www.robotics-weekly.example/cygnus-profile",
                            "title": "Cygnus Robotics profile", "encrypted_content": "x"}]),
    )
    third = ModelOutput.from_message(
        ChatMessageAssistant(content=[provider_search, ContentText(text="The filing is dated 2022-12-15.")], model="model")
    )
    third.usage = usage
    from inspect_ai.tool import ToolCall

    last = ModelOutput.from_message(ChatMessageAssistant(
        content=f"Likely yes: Cygnus filed its S-1 on 2022-12-15 ({FILING}).", model="model",
        tool_calls=[ToolCall(id="call_4", function="bash", arguments={"cmd": "curl -s https://www.cygnus-robotics.example/ir/news"})],
    ))
    last.usage = usage
    return [
        calls(("web_search", {"query": "cygnus robotics ipo"}, "call_1"), ("fetch", {"url": FILING}, "call_2"),
              ("fetch", {"url": MISSING}, "call_2b")),
        calls(("days_between", {"start": "2022-12-15", "end": "2023-03-31"}, "call_3")),
        third,
        last,
    ]


def build(out: Path = OUT) -> list[Path]:
    """Run the tasks (Tavily stubbed) and copy their logs into *out*; returns the paths written."""
    with _tavily_stub():
        return _build(out)


def _build(out: Path) -> list[Path]:
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    foreign, compacted, stated = _task()
    answer = ModelOutput.from_content("mockllm/model", "Probably.")
    answer.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, the_task, script in (
            ("foreign", foreign, _outputs()), ("compacted", compacted, _outputs()), ("stated", stated, [answer])
        ):
            model = get_model("mockllm/model", custom_outputs=script)
            [log] = inspect_eval(the_task, model=model, display="none", log_dir=str(Path(tmp) / name), log_format="eval")
            assert log.status == "success", log.error
            target = out / f"{name}.eval"
            shutil.copyfile(log.location, target)
            written.append(target)
    return written


if __name__ == "__main__":
    for path in build(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(path)
