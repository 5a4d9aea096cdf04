"""A transport answering the stubs' world in-process (no socket): what the fast tests of the web backends use."""

import json
import urllib.parse

from anachron.timelock.web.transport import Reply
from tests import web_stubs


class Canned:
    """Answers each vendor's request with its world (tests.web_stubs); keeps every request.

    *status* and *body* replace every answer (an HTTP error, a reply out of shape).
    """

    def __init__(self, status: int = 200, body: bytes | None = None) -> None:
        self.requests = []
        self.status, self.body = status, body

    def send(self, request):
        self.requests.append(request)
        if self.body is not None or self.status != 200:
            return Reply(self.status, self.body or b"{}")
        path = urllib.parse.urlsplit(request.url).path
        if path.endswith("/res/v1/web/search"):
            payload = web_stubs.brave_results()
        elif "/openreward/" in request.url or request.url.startswith("http://openreward.test"):
            body = json.loads(request.body)
            if path.endswith("/fetch"):
                hit = next(h for h in web_stubs.openreward_hits() if h["url"] == body["url"])
                payload = {"url": hit["url"], "text": hit["snippet"], "title": hit["title"],
                           "crawl_date": hit["crawl_date"], "publish_date": hit["publish_date"], "redirect": None}
            else:
                payload = {"mode": "hybrid", "hits": web_stubs.openreward_hits()}
        elif request.url.startswith("http://tavily.test"):
            payload = web_stubs.tavily_results()
        else:
            payload = web_stubs.exa_results()
        return Reply(200, json.dumps(payload).encode())
