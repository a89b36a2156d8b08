"""Cost formulas as mathematics: MathML printed from the parsed tree of the safe formula language
(catalogue/costs.py), never written by hand per formula. Pure: text in, markup out.

Browsers render MathML Core natively, so no script is needed; the formula's text rides along as
an annotation and is shown beside the mathematics by the template filter, so it stays copyable.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from html import escape

from catalogue import costs

# Names written as Greek letters: the survey's notation (FACTS.md §2.4 uses γ, §2.3 α).
GREEK = {
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "epsilon": "ε",
    "mu": "μ",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
}
# Binding strength: a child binding more loosely than its parent needs parentheses.
SUM, PRODUCT, SIGN, POWER, ATOM = 1, 2, 3, 4, 5


@lru_cache(maxsize=2048)  # pure, and pages print the same few dozen formulas on every request
def formula_mathml(text: str, display: str = "inline") -> str:
    """`text` as a <math> element; FormulaError when it is not in the formula language."""
    tree = costs.parse_for_display(text).tree
    body = _print(tree)
    return (
        f'<math display="{display}"><semantics><mrow>{body}</mrow>'
        f'<annotation encoding="text/plain">{escape(text)}</annotation></semantics></math>'
    )


def _print(node: ast.expr) -> str:
    match node:
        case ast.Constant(value=value):
            return _number(value)
        case ast.Name(id=name):
            return _identifier(name)
        case ast.UnaryOp(op=op, operand=operand):
            sign = "−" if isinstance(op, ast.USub) else "+"
            return f"<mo>{sign}</mo>{_operand(operand, SIGN)}"
        case ast.BinOp():
            return _binary(node)
        case ast.Call(func=ast.Name(id=name), args=arguments):
            return _call(name, arguments)
    raise costs.FormulaError(f"cannot print {type(node).__name__}")  # parse refuses it


def _binary(node: ast.BinOp) -> str:
    left, right = node.left, node.right
    match node.op:
        case ast.Add():
            return f"{_operand(left, SUM)}<mo>+</mo>{_operand(right, SUM + 1)}"
        case ast.Sub():
            return f"{_operand(left, SUM)}<mo>−</mo>{_operand(right, SUM + 1)}"
        case ast.Mult():
            return f"{_operand(left, PRODUCT)}{_times(left, right)}{_operand(right, PRODUCT)}"
        case ast.Div():  # a fraction bar groups both sides: no parentheses needed
            return f"<mfrac><mrow>{_print(left)}</mrow><mrow>{_print(right)}</mrow></mfrac>"
        case ast.Pow():  # the raised position groups the exponent
            return f"<msup>{_group(_operand(left, ATOM))}<mrow>{_print(right)}</mrow></msup>"
    raise costs.FormulaError("cannot print this operator")


def _times(left: ast.expr, right: ast.expr) -> str:
    """A coefficient is written against what it multiplies (2L); other factors get a dot."""
    if _is_number(left) and not _is_number(right) and not _starts_with_number(right):
        return "<mo>&#x2062;</mo>"  # invisible times: read aloud as "times", shown as nothing
    return "<mo>·</mo>"


def _call(name: str, arguments: list[ast.expr]) -> str:
    inner = "<mo>,</mo>".join(f"<mrow>{_print(argument)}</mrow>" for argument in arguments)
    match name:
        case "sqrt":
            return f"<msqrt>{inner}</msqrt>"
        case "ceil":
            return _fenced(inner, "⌈", "⌉")
        case "floor":
            return _fenced(inner, "⌊", "⌋")
        case "log2":
            head = "<msub><mi>log</mi><mn>2</mn></msub>"
        case "log":  # the language's log is the natural logarithm
            head = "<mi>ln</mi>"
        case _:
            head = f"<mi>{escape(name)}</mi>"
    return f"{head}<mo>&#x2061;</mo>{_fenced(inner, '(', ')')}"


def _operand(node: ast.expr, context: int) -> str:
    """`node` printed inside an operator binding at `context`, in parentheses when needed."""
    printed = _print(node)
    return _fenced(printed, "(", ")") if _strength(node) < context else printed


def _strength(node: ast.expr) -> int:
    match node:
        case ast.BinOp(op=ast.Add() | ast.Sub()):
            return SUM
        case ast.BinOp(op=ast.Mult()):
            return PRODUCT
        case ast.BinOp(op=ast.Pow()):
            return POWER
        case ast.UnaryOp():
            return SIGN
    return ATOM  # names, numbers, calls, fractions


def _identifier(name: str) -> str:
    """C_out is C with subscript "out"; gamma is γ. A longer name stays a word (work, depth)."""
    base, _, subscript = name.partition("_")
    base_mi = f"<mi>{escape(GREEK.get(base, base))}</mi>"
    if not subscript:
        return base_mi
    return f"<msub>{base_mi}<mi>{escape(subscript.replace('_', ','))}</mi></msub>"


def _number(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"<mn>{value}</mn>"


def _fenced(inner: str, opening: str, closing: str) -> str:
    return f"<mrow><mo>{opening}</mo>{inner}<mo>{closing}</mo></mrow>"


def _group(printed: str) -> str:
    return f"<mrow>{printed}</mrow>"


def _is_number(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant)


def _starts_with_number(node: ast.expr) -> bool:
    while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Pow):
        node = node.left
    return _is_number(node)
