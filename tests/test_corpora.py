"""anachron.store.corpora: how --corpus is named in outputs (a database URL never with its password).

Pure string handling, no server: tests/test_postgres.py (ScorersTest) checks the
same through `demo` and `report` against a real one.
"""

import unittest

from anachron.store.corpora import is_database_url, shown_corpus


class ShownCorpusTest(unittest.TestCase):
    def test_a_password_is_hidden_wherever_the_url_carries_it(self):
        cases = {
            "postgresql://u:secretpw@h:5432/db": "postgresql://u:***@h:5432/db",
            "postgres://u:secretpw@h/db?sslmode=require": "postgres://u:***@h/db?sslmode=require",
            "postgresql://u@h/db?password=secretpw": "postgresql://u@h/db?password=***",
            "postgresql://h/db?sslmode=disable&password=secretpw&application_name=x": "postgresql://h/db?sslmode=disable&password=***&application_name=x",
            "postgresql://u:a@h/db?password=secretpw": "postgresql://u:***@h/db?password=***",
        }
        for url, want in cases.items():
            self.assertTrue(is_database_url(url))
            self.assertEqual(shown_corpus(url), want)
            self.assertNotIn("secretpw", shown_corpus(url))

    def test_files_and_urls_without_a_password_are_shown_as_given(self):
        for spec in ("corpus/v0", "/tmp/a:b@c/corpus.db", "postgresql://u@h/db", "postgresql:///db"):
            self.assertEqual(shown_corpus(spec), spec)


if __name__ == "__main__":
    unittest.main()
