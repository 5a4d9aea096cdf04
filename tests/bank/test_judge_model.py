"""`--judge-model`: an Inspect model judges only what the rules leave ambiguous (offline, mockllm)."""

import unittest
import warnings

from anachron.bank import load_bank, oracle_responses, run_bank
from anachron.core.errors import AnachronError

from tests.support import require_extra, run_cli

AMBIGUOUS_ITEMS = {
    "dltp-revenue-2020q4-2021-02-04": "412",  # digits without a scale
    "hlcf-revenue-fy2019-2020-02-20": "$1.0B or $1.2B",  # the answer among other figures
    "nmbs-revenue-2021q4-2022-05-11": "58",
}
# What the mock model replies, per item: a verdict in a sentence, a bare verdict, and no verdict.
REPLIES = {
    "dltp-revenue-2020q4-2021-02-04": "Correct.",
    "hlcf-revenue-fy2019-2020-02-20": "incorrect",
    "nmbs-revenue-2021q4-2022-05-11": "I cannot tell.",
}


def setUpModule():
    require_extra("inspect_ai", "inspect")
    warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"inspect_ai\.")


class JudgeModelTest(unittest.TestCase):
    def setUp(self):
        from inspect_ai.model import ModelOutput, ModelUsage, get_model

        self.bank = load_bank()
        self.prompts = []

        def generate(input, tools, tool_choice, config):
            prompt = input[-1].text
            self.prompts.append(prompt)
            item_id = next(i for i in REPLIES if self.bank.items[i].question in prompt)
            out = ModelOutput.from_content("mockllm/model", REPLIES[item_id])
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no token counting offline
            return out

        self.model = get_model("mockllm/model", custom_outputs=generate)
        self.responses = oracle_responses(self.bank, "respect")
        self.responses.update(AMBIGUOUS_ITEMS)

    def run_with_judge(self):
        from anachron.bank.model_judge import model_judge

        return run_bank(self.bank, self.responses, manifest_version=self.bank.version, second_judge=model_judge(self.model))

    def test_only_the_ambiguous_remainder_goes_to_the_model(self):
        rules_only = run_bank(self.bank, self.responses, manifest_version=self.bank.version)
        self.assertEqual(rules_only.tally.ambiguous, 3)
        self.assertNotIn("judge", rules_only.to_dict())
        card = self.run_with_judge().to_dict()
        self.assertEqual(len(self.prompts), 3)  # 148 responses, 3 ambiguous, 3 requests
        by_id = {r["item_id"]: r for r in card["items"]}
        self.assertEqual(by_id["dltp-revenue-2020q4-2021-02-04"]["judgement"], "correct")
        self.assertEqual(by_id["dltp-revenue-2020q4-2021-02-04"]["judged_by"], "model mockllm/model")
        self.assertEqual(by_id["dltp-revenue-2020q4-2021-02-04"]["reason"], "states 412 without a scale; judged correct by mockllm/model")
        self.assertEqual(by_id["hlcf-revenue-fy2019-2020-02-20"]["judgement"], "incorrect")
        self.assertEqual(by_id["nmbs-revenue-2021q4-2022-05-11"]["judgement"], "ambiguous")  # no verdict: not guessed
        self.assertEqual(by_id["nmbs-revenue-2021q4-2022-05-11"]["judged_by"], "rules")
        self.assertEqual(card["judge"], {"model": "mockllm/model", "decided_by_model": 2, "still_ambiguous": 1})
        self.assertEqual((card["correct"], card["incorrect"], card["ambiguous"]), (106, 1, 1))
        # The oracles are judged by the rules alone, so the checks do not depend on the model.
        self.assertTrue(card["valid"])

    def test_the_model_sees_the_question_the_date_and_the_history(self):
        self.run_with_judge()
        prompt = next(p for p in self.prompts if "Delta Pharma" in p)
        self.assertIn("as if today were 2021-02-04", prompt)
        self.assertIn("412,000,000 USD (published 2021-02-04)", prompt)
        self.assertIn("377,000,000 USD (published 2021-09-17)", prompt)
        self.assertIn("<<<\n412\n>>>", prompt)

    def test_a_model_that_cannot_be_loaded_is_one_line_of_bad_input(self):
        from anachron.bank.model_judge import model_judge

        with self.assertRaisesRegex(AnachronError, "--judge-model"):
            model_judge("no-such-provider/model")
        status, out, err = run_cli("bank", "run", "--system", "respect", "--judge-model", "no-such-provider/model")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_a_missing_key_is_said_in_plain_words(self):
        import os
        from unittest import mock

        from anachron.bank.model_judge import model_judge

        keys = [k for k in os.environ if k.startswith(("OPENAI", "AZUREAI_OPENAI", "AZURE_OPENAI"))]
        with mock.patch.dict(os.environ):
            for key in keys:
                del os.environ[key]
            with self.assertRaises(AnachronError) as raised:
                model_judge("openai/gpt-4o-mini")
        message = str(raised.exception)
        self.assertTrue(message.startswith("--judge-model openai/gpt-4o-mini: "), message)
        self.assertIn("OPENAI_API_KEY", message)
        self.assertNotIn("[bold]", message)  # Inspect's terminal markup is not shown
        self.assertNotIn("[/blue]", message)
        self.assertNotIn("ERROR:", message)
        self.assertEqual(len(message.splitlines()), 1)


if __name__ == "__main__":
    unittest.main()
