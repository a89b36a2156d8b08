"""The one printer of formulas as MathML, from the formula language's parsed tree (no database)."""

import pytest

from catalogue.costs import FormulaError
from catalogue.mathml import formula_mathml


def body(text: str) -> str:
    """The printed expression, without the <math> wrapper and the text annotation."""
    markup = formula_mathml(text)
    return markup.split("<mrow>", 1)[1].rsplit("</mrow><annotation", 1)[0]


def test_it_writes_subscripts_and_greek_letters():
    assert body("C_out*gamma") == "<msub><mi>C</mi><mi>out</mi></msub><mo>·</mo><mi>γ</mi>"


def test_it_writes_a_coefficient_against_what_it_multiplies():
    assert body("2*L") == "<mn>2</mn><mo>&#x2062;</mo><mi>L</mi>"
    assert body("2*3") == "<mn>2</mn><mo>·</mo><mn>3</mn>"


def test_it_writes_a_division_as_a_fraction_without_parentheses():
    assert body("(P - 1)/P") == (
        "<mfrac><mrow><mi>P</mi><mo>−</mo><mn>1</mn></mrow><mrow><mi>P</mi></mrow></mfrac>"
    )


def test_it_puts_parentheses_only_where_the_grouping_needs_them():
    assert body("a*(b + c)") == (
        "<mi>a</mi><mo>·</mo><mrow><mo>(</mo><mi>b</mi><mo>+</mo><mi>c</mi><mo>)</mo></mrow>"
    )
    assert body("a + b*c") == "<mi>a</mi><mo>+</mo><mi>b</mi><mo>·</mo><mi>c</mi>"
    assert body("a - (b - c)").count("<mo>(</mo>") == 1
    assert body("(a - b) - c").count("<mo>(</mo>") == 0


def test_it_writes_powers_logarithms_and_roundings():
    assert body("r**2") == "<msup><mrow><mi>r</mi></mrow><mrow><mn>2</mn></mrow></msup>"
    assert body("ceil(log2(C_in))") == (
        "<mrow><mo>⌈</mo><mrow><msub><mi>log</mi><mn>2</mn></msub><mo>&#x2061;</mo>"
        "<mrow><mo>(</mo><mrow><msub><mi>C</mi><mi>in</mi></msub></mrow><mo>)</mo></mrow>"
        "</mrow><mo>⌉</mo></mrow>"
    )
    assert "<mi>ln</mi>" in body("log(x)")
    assert body("sqrt(x)") == "<msqrt><mrow><mi>x</mi></mrow></msqrt>"
    assert "<mi>max</mi>" in body("max(work / p, depth)")


def test_it_keeps_the_text_as_an_annotation_escaped():
    markup = formula_mathml("a/b")
    assert markup.startswith('<math display="inline"><semantics>')
    assert '<annotation encoding="text/plain">a/b</annotation>' in markup


def test_it_prints_every_formula_of_the_fixtures():
    import json
    from pathlib import Path

    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    models = json.loads((fixtures / "cost_models.json").read_text())
    for model in models:
        assert formula_mathml(model["formula"]).startswith("<math"), model["label"]


@pytest.mark.parametrize("text", ["__import__('os')", "a.b", "1 if a else 2", "", "a < b"])
def test_it_refuses_what_the_language_refuses(text):
    with pytest.raises(FormulaError):
        formula_mathml(text)
