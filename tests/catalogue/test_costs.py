"""The W-D formula language and helpers (pure: no database)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catalogue.costs import (
    MAX_TEXT_LENGTH,
    FormulaError,
    evaluate,
    parse,
    validate,
)

VARIABLES = ("N", "C_in", "x")
VALUES = {"N": 8.0, "C_in": 3.0, "x": -2.5}


def make_value(text: str, **values: float) -> float:
    return parse(text, VARIABLES).evaluate(VALUES | values)


def assert_refused(text: str, *fragments: str) -> None:
    with pytest.raises(FormulaError) as caught:
        make_value(text)
    for fragment in fragments:
        assert fragment in str(caught.value)


# The language ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42", 42.0),
        ("2.5e3", 2500.0),
        ("N", 8.0),
        ("N + C_in", 11.0),
        ("N - C_in", 5.0),
        ("N * C_in", 24.0),
        ("N / 4", 2.0),
        ("N ** 2", 64.0),
        ("2 ** 3 ** 2", 512.0),  # right-associative, as in mathematics
        ("-N", -8.0),
        ("+N", 8.0),
        ("-x ** 2", -6.25),
        ("(N + 1) * 2", 18.0),
        ("log(N)", math.log(8)),
        ("log2(N)", 3.0),
        ("sqrt(N * 2)", 4.0),
        ("ceil(x)", -2.0),
        ("floor(x)", -3.0),
        ("min(N, C_in)", 3.0),
        ("max(N, C_in, 9)", 9.0),
        ("min(N, x, C_in)", -2.5),
        ("ceil(log2(C_in)) + ceil(log2(N))", 5.0),
        ("  N\n  + 1", 9.0),  # whitespace, newlines included, is free
    ],
)
def test_it_evaluates_every_operator_on_scalars(text: str, expected: float) -> None:
    value = make_value(text)
    assert isinstance(value, float)
    assert value == pytest.approx(expected)


def test_it_evaluates_on_numpy_arrays_with_broadcasting() -> None:
    formula = parse(
        "max(N, C_in) * ceil(log2(N)) + min(N, 2) / sqrt(C_in) - floor(x) ** 2", VARIABLES
    )
    n = np.array([1.0, 2.0, 4.0, 8.0])
    result = formula.evaluate({"N": n, "C_in": np.array([[3.0], [5.0]]), "x": 0.5})
    assert result.shape == (2, 4)
    expected = (
        np.maximum(n, [[3.0], [5.0]]) * np.ceil(np.log2(n))
        + np.minimum(n, 2) / np.sqrt([[3.0], [5.0]])
        - 0.0
    )
    np.testing.assert_allclose(result, expected)


def test_it_broadcasts_a_constant_formula_over_array_values() -> None:
    result = evaluate("1", {"N": np.arange(1, 4)})
    np.testing.assert_array_equal(result, [1.0, 1.0, 1.0])


def test_it_accepts_integer_arrays_and_numpy_scalars() -> None:
    assert evaluate("N * 2", {"N": np.int64(3)}) == 6.0
    np.testing.assert_array_equal(evaluate("N / 2", {"N": np.array([1, 2])}), [0.5, 1.0])


def test_it_records_the_variables_a_formula_uses_but_not_function_names() -> None:
    formula = parse("log2(N) + max(N, 2)", VARIABLES)
    assert formula.variables == {"N"}
    assert formula.text == "log2(N) + max(N, 2)"


def test_it_validates_without_returning_anything() -> None:
    assert validate("N * C_in", VARIABLES) is None
    with pytest.raises(FormulaError):
        validate("N * Q", VARIABLES)


def test_it_is_a_value_error_for_callers_that_catch_those() -> None:
    assert issubclass(FormulaError, ValueError)


# Refusals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("().__class__", ["attribute access is not allowed"]),
        ("N.real", ["attribute access is not allowed", "position 1"]),
        ("__import__('os')", ["function '__import__' is not allowed", "allowed: ceil, floor"]),
        ("exec('1')", ["function 'exec' is not allowed at position 1 (allowed: ceil, floor, log"]),
        ("eval('1')", ["function 'eval' is not allowed"]),
        ("N(2)", ["function 'N' is not allowed"]),
        ("(N + 1)(2)", ["only named functions can be called"]),
        ("lambda: 1", ["lambda is not allowed"]),
        ("[i for i in N]", ["a comprehension is not allowed"]),
        ("sum(i for i in N)", ["function 'sum' is not allowed"]),
        ("N[0]", ["indexing is not allowed"]),
        ("'text'", ["text is not allowed"]),
        ("b'x'", ["text is not allowed"]),
        ("f'{N}'", ["an f-string is not allowed"]),
        ("True", ["True is not allowed"]),
        ("None", ["None is not allowed"]),
        ("1j", ["a complex number is not allowed"]),
        ("N < 1", ["a comparison is not allowed"]),
        ("N and x", ["a boolean operator (and, or) is not allowed"]),
        ("N if x else 1", ["a conditional expression (if/else) is not allowed"]),
        ("(y := 1)", ["assignment (:=) is not allowed"]),
        ("(N, x)", ["a tuple is not allowed"]),
        ("[N]", ["a list is not allowed"]),
        ("{N: 1}", ["a dict is not allowed"]),
        ("N % 2", ["operator '%' is not allowed", "allowed: + - * / **"]),
        ("N // 2", ["operator '//' is not allowed"]),
        ("N @ x", ["operator '@' is not allowed"]),
        ("~N", ["operator '~' is not allowed"]),
        ("not N", ["operator 'not' is not allowed"]),
        ("X + 1", ["unknown variable 'X' at position 1 (declared: N, C_in, x)"]),
        ("N + n", ["unknown variable 'n' at position 5"]),
        ("log(x=1)", ["keyword arguments are not allowed"]),
        ("max(*N)", ["a starred argument is not allowed"]),
        ("log(N, 2)", ["log() takes exactly 1 argument, not 2"]),
        ("sqrt()", ["sqrt() takes exactly 1 argument, not 0"]),
        ("max(N)", ["max() takes at least 2 arguments, not 1"]),
        ("log + 1", ["'log' is a function", "log(...)"]),
        ("N # + 1", ["comments ('#') are not allowed", "position 3"]),
        ("N \\\n + 1", ["backslashes are not allowed"]),
        ("N + é", ["character 'é' at position 5 is not allowed"]),
        ("ℕ", ["character 'ℕ'"]),  # Python would silently read it as N
        ("N\x00", ["character '\\x00'"]),
        ("", ["formula is empty"]),
        ("   \n ", ["formula is empty"]),
        ("N +", ["formula ends unexpectedly"]),
        ("N + * 2", ["invalid syntax at position 5"]),
        ("  (N", ["invalid syntax at position 3", "was never closed"]),
        ("N = 1", ["invalid syntax"]),
        ("import os", ["invalid syntax"]),
        ("1e13", ["number at position 1 is too large"]),
        ("1e999", ["too large"]),
        ("9" * 40, ["too large"]),
    ],
)
def test_it_refuses_what_is_outside_the_language(text: str, fragments: list[str]) -> None:
    assert_refused(text, *fragments)


def test_it_refuses_text_longer_than_the_limit() -> None:
    assert_refused("N+" * 250 + "N", "formula is too long: 501 characters (limit 500)")
    assert len("1+" * 249 + "1") < MAX_TEXT_LENGTH


def test_it_refuses_formulas_with_too_many_terms() -> None:
    assert_refused("+".join(["N"] * 30) + "+" + "*".join(["1"] * 200), "too large", "terms")


@pytest.mark.parametrize(
    "text",
    ["-" * 100 + "1", "sqrt(" * 40 + "1" + ")" * 40, "(" * 40 + "-" * 40 + "N" + ")" * 40],
)
def test_it_refuses_formulas_nested_too_deeply(text: str) -> None:
    assert_refused(text, "nested too deeply", "limit 30")


def test_it_allows_parentheses_that_add_no_nesting() -> None:
    assert make_value("(" * 40 + "N" + ")" * 40) == 8.0


def test_it_refuses_huge_exponents_before_computing_them() -> None:
    assert_refused("9**9**9", "exponent too large at position 4")
    assert_refused("2**10000", "exponent too large at position 4")
    assert_refused("2**-10000", "exponent too large")


def test_it_refuses_results_that_are_not_finite_numbers() -> None:
    assert_refused("10.0 ** 400", "result is not a finite number")
    assert_refused("1e12 ** 30", "result is not a finite number")
    assert_refused("log(0)", "result is not a finite number at position 1")
    assert_refused("sqrt(x)", "result is not a finite number")
    assert_refused("x ** 0.5", "result is not a finite number")
    assert_refused("0 ** -1", "result is not a finite number")


def test_it_refuses_division_by_zero() -> None:
    assert_refused("N / 0", "division by zero at position 5")
    assert_refused("N / (x - x)", "division by zero")
    with pytest.raises(FormulaError, match="division by zero"):
        evaluate("1 / N", {"N": np.array([1.0, 0.0])})


def test_it_names_missing_values() -> None:
    formula = parse("N * C_in + x", VARIABLES)
    with pytest.raises(FormulaError, match="missing value for variables 'C_in', 'x'"):
        formula.evaluate({"N": 1.0})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("3", "must be a real number or array, not str"),
        (True, "not bool"),
        (None, "not NoneType"),
        (np.array(["a"]), "not array of <U1"),
        (np.array([1j]), "not array of complex128"),
        (float("nan"), "value of 'N' is not a finite number"),
        (np.array([1.0, np.inf]), "value of 'N' is not a finite number"),
    ],
)
def test_it_refuses_values_that_are_not_finite_real_numbers(value: object, message: str) -> None:
    with pytest.raises(FormulaError, match=message):
        parse("N", VARIABLES).evaluate({"N": value})


def test_it_refuses_arrays_whose_shapes_do_not_broadcast() -> None:
    with pytest.raises(FormulaError, match="incompatible shapes"):
        evaluate("N + x", {"N": np.ones(2), "x": np.ones(3)})


@pytest.mark.parametrize("name", ["log", "2x", "lambda", "N-1", "é"])
def test_it_refuses_declared_names_that_cannot_be_variables(name: str) -> None:
    with pytest.raises(FormulaError, match="cannot be a variable name"):
        parse("1", [name])


def test_it_refuses_text_that_is_not_a_string() -> None:
    with pytest.raises(FormulaError, match="must be text, not int"):
        parse(42, VARIABLES)  # type: ignore[arg-type]


# Never anything but FormulaError -----------------------------------------------------------------

TOKENS = [
    *VARIABLES,
    *"0123456789",
    "1e999",
    "1e12",
    "0.5",
    ".",
    "e",
    "j",
    *["+", "-", "*", "/", "**", "%", "//", "@", "<", "==", "~", "=", ":=", "&", "|", "^"],
    *["(", ")", "[", "]", "{", "}", ",", ":", ";", "'", '"', "#", "\\", "\n", " ", "\t"],
    *["log", "log2", "sqrt", "ceil", "floor", "min", "max", "exec", "eval", "__import__"],
    *["lambda", "for", "in", "if", "else", "and", "or", "not", "True", "None", "__class__"],
    "é",
    "\x00",
]
token_soups = st.lists(st.sampled_from(TOKENS), max_size=60).map("".join)
value_sets = st.fixed_dictionaries(
    {
        name: st.one_of(
            st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6),
            st.just(np.array([0.0, 1.0, 2.5])),
        )
        for name in VARIABLES
    }
)


def parse_and_evaluate(text: str, values: dict[str, object]) -> None:
    try:
        parse(text, VARIABLES).evaluate(values)
    except FormulaError:
        pass  # the only exception allowed


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(max_examples=300)
@given(text=st.text(max_size=600), values=value_sets)
def test_it_raises_only_formula_errors_for_any_text(text: str, values: dict) -> None:
    parse_and_evaluate(text, values)


# Python's own parser warns about soups such as "1if"; harmless, and not ours to silence in
# costs.py, since warnings.catch_warnings is not thread-safe.
@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(max_examples=300)
@given(text=token_soups, values=value_sets)
def test_it_raises_only_formula_errors_for_soups_of_grammar_tokens(text: str, values: dict) -> None:
    parse_and_evaluate(text, values)
