"""A log's digest chain (anachron/core/chain.py).

- the chain of a log's bytes changes when a line is edited, removed or appended (the count too for
  the last two), and a torn last line differs from the same line completed;
- a log written by ChainWriter carries each link in its records: a record edited or removed in the
  middle breaks the link of the record after it, found by line; a record that is not JSON too;
- the writer's chain is the chain of the bytes it wrote.
"""

from __future__ import annotations

import shutil
import tempfile
import unittest
from pathlib import Path

from anachron.core.chain import CHAIN_START, ChainWriter, broken_links, log_chain


class Chain(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = Path(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.path = self.tmp / "log.jsonl"
        writer = ChainWriter(self.path)
        for n in range(4):
            writer.write({"n": n, "text": "line\u2028separator" if n == 1 else "x"})
        self.written = writer.chain
        writer.close()
        self.data = self.path.read_bytes()
        self.lines = self.data.split(b"\n")[:-1]

    def rejoin(self, lines) -> bytes:
        return b"".join(line + b"\n" for line in lines)

    def test_the_writers_chain_is_the_chain_of_its_bytes(self):
        self.assertEqual(log_chain(self.data), self.written)
        self.assertEqual(self.written.records, 4)
        self.assertEqual(broken_links(self.data), [])

    def test_an_empty_log_is_the_start(self):
        self.assertEqual(log_chain(b"").sha256, CHAIN_START)
        self.assertEqual(log_chain(b"").records, 0)

    def test_an_edit_is_found_at_the_next_record_and_in_the_last_link(self):
        edited = list(self.lines)
        edited[1] = edited[1].replace(b'"n": 1', b'"n": 7')
        data = self.rejoin(edited)
        self.assertEqual(broken_links(data), ["line 3's prev is not the digest of the lines before it"])
        self.assertNotEqual(log_chain(data).sha256, self.written.sha256)
        self.assertEqual(log_chain(data).records, 4)

    def test_an_edit_of_the_last_record_changes_the_last_link(self):
        edited = list(self.lines)
        edited[-1] = edited[-1].replace(b'"x"', b'"y"')
        data = self.rejoin(edited)
        self.assertEqual(broken_links(data), [])  # nothing after it to break: the pinned link finds it
        self.assertNotEqual(log_chain(data).sha256, self.written.sha256)

    def test_a_removal_is_found(self):
        data = self.rejoin(self.lines[:1] + self.lines[2:])
        self.assertEqual(broken_links(data), ["line 2's prev is not the digest of the lines before it"])
        self.assertEqual(log_chain(self.rejoin(self.lines[:-1])).records, 3)

    def test_an_append_changes_the_count_and_the_last_link(self):
        data = self.data + b'{"prev": "' + log_chain(self.data).sha256.encode() + b'", "n": 9}\n'
        self.assertEqual(broken_links(data), [])  # linked correctly: only what run.json pins finds it
        self.assertEqual(log_chain(data).records, 5)
        self.assertNotEqual(log_chain(data).sha256, self.written.sha256)

    def test_a_torn_line_differs_from_the_line_completed(self):
        torn = log_chain(self.data[:-1])
        self.assertTrue(torn.torn)
        self.assertEqual(torn.records, 3)
        self.assertNotEqual(torn.sha256, self.written.sha256)

    def test_a_line_that_is_not_a_json_object_is_named(self):
        self.assertEqual(broken_links(self.rejoin([self.lines[0], b"[1]", *self.lines[1:]]))[0], "line 2 is not a JSON object")

    def test_a_writer_never_appends_to_an_existing_log(self):
        with self.assertRaises(FileExistsError):
            ChainWriter(self.path)


if __name__ == "__main__":
    unittest.main()
