"""`anachron.core.frozen.maker`: the instance ``__init__`` would build, or a refusal."""

from __future__ import annotations

import dataclasses
import unittest
from dataclasses import dataclass, field

from anachron.core.frozen import maker
from anachron.core.leakage import Judgement
from anachron.core.trace import Interaction


@dataclass(frozen=True)
class Plain:
    a: int
    b: tuple = ()
    c: str | None = None


class MakerTest(unittest.TestCase):
    def test_the_same_instance_as_init(self):
        make = maker(Plain)
        for values in ({"a": 1}, {"a": 2, "c": "x"}, {"c": "y", "b": (1,), "a": 3}):
            with self.subTest(values=values):
                built, init = make(**values), Plain(**values)
                self.assertIs(type(built), Plain)
                self.assertEqual(built, init)
                self.assertEqual(hash(built), hash(init))
                self.assertEqual(repr(built), repr(init))
                self.assertEqual(list(vars(built).items()), list(vars(init).items()))  # the fields in order

    def test_the_instance_is_frozen(self):
        built = maker(Plain)(a=1)
        with self.assertRaises(dataclasses.FrozenInstanceError):
            built.a = 2  # type: ignore[misc]

    def test_the_scorer_s_classes(self):
        judgement = maker(Judgement)(interaction=True, result_leak=True, horizons=(3,), evidence=("x",))
        self.assertEqual(judgement, Judgement(True, result_leak=True, horizons=(3,), evidence=("x",)))
        call = maker(Interaction)(tool="search", query="q", returned=())
        self.assertEqual(call, Interaction("search", "q", ()))
        self.assertEqual(repr(call), repr(Interaction("search", "q", ())))

    def test_a_default_factory_makes_a_fresh_value_for_a_field_left_out(self):
        @dataclass(frozen=True)
        class Listed:
            a: int
            b: list = field(default_factory=list)
            c: int = 0

        make = maker(Listed)
        first, second = make(a=1), make(a=1)
        self.assertEqual(first, Listed(1))
        self.assertEqual(list(vars(first).items()), list(vars(Listed(1)).items()))
        self.assertIsNot(first.b, second.b)  # one list each, as __init__ makes
        given = [2]
        self.assertIs(make(a=1, b=given, c=3).b, given)
        self.assertEqual(make(a=1, b=given, c=3), Listed(1, given, 3))

    def test_the_sample_result(self):
        from anachron.core.leakage import SampleResult
        import datetime as _dt

        values = {"sample_id": "s", "as_of": _dt.date(2024, 1, 1), "mode": None, "interactions": 1, "result_leaks": 0,
                  "survivorship_leaks": 0, "survivorship_base": 0, "restatement_leaks": 0, "query_intent_leaks": 0,
                  "evidence": ()}
        built, init = maker(SampleResult)(**values), SampleResult(**values)
        self.assertEqual(list(vars(built).items()), list(vars(init).items()))
        self.assertEqual(repr(built), repr(init))

    def test_an_unknown_or_missing_field_is_refused(self):
        make = maker(Plain)
        with self.assertRaisesRegex(TypeError, "no field"):
            make(a=1, d=2)
        with self.assertRaisesRegex(TypeError, "missing field"):
            make(b=())
        with self.assertRaises(TypeError):
            make(1)  # keywords only

    def test_a_class_whose_init_does_more_is_refused(self):
        @dataclass(frozen=True)
        class Checked:
            a: int

            def __post_init__(self):
                pass

        @dataclass(frozen=True, slots=True)
        class Slotted:
            a: int

        @dataclass
        class Open:
            a: int

        for cls in (Checked, Slotted, Open, int):
            with self.subTest(cls=cls):
                with self.assertRaises(TypeError):
                    maker(cls)


if __name__ == "__main__":
    unittest.main()
