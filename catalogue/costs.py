"""Work-Depth cost formulas in a small, safe language (the W-D figures are in explorer/costs).

A cost formula is text such as ``N*C_out*H_out*W_out*C_in*K_y*K_x`` or
``2*log2(P)*(L + gamma*m*G)``. Curators edit formulas in the admin, so a formula is untrusted:
it is parsed with :func:`ast.parse` and checked node by node against a whitelist; the checked
tree is then turned, once, into nested Python functions (one per node) that evaluate it, so that
the planner's hundreds of evaluations a request do not walk and match the tree each time.
Nothing here calls eval, exec or compile.

The language: int and float literals; the declared variables; binary ``+ - * / **``; unary
``-`` and ``+``; calls to ``log`` (natural), ``log2``, ``sqrt``, ``ceil``, ``floor`` (one argument
each) and ``min``, ``max`` (two or more). Only printable ASCII is accepted; whitespace, newlines
included, is free. All arithmetic is in floating point, on scalars or numpy arrays.

Every failure, for any input text, is a :class:`FormulaError` whose message says what is wrong and
where: positions count characters of the formula from 1.
"""

import ast
import functools
import keyword
import math
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

MAX_TEXT_LENGTH = 500
MAX_DEPTH = 30
MAX_NODES = 200
MAX_CONSTANT = 1e12
# Float powers are cheap, but a cap keeps `9**9**9` and `2**10000` from ever being attempted.
MAX_EXPONENT = 1000

Number = float | np.ndarray


class FormulaError(ValueError):
    """A formula that cannot be parsed or evaluated; the message is written for the curator."""


@dataclass(frozen=True)
class _Function:
    implementation: Callable[..., Number]
    arguments: int
    variadic: bool = False  # True: `arguments` or more


FUNCTIONS: dict[str, _Function] = {
    "ceil": _Function(np.ceil, 1),
    "floor": _Function(np.floor, 1),
    "log": _Function(np.log, 1),
    "log2": _Function(np.log2, 1),
    "max": _Function(lambda *args: functools.reduce(np.maximum, args), 2, variadic=True),
    "min": _Function(lambda *args: functools.reduce(np.minimum, args), 2, variadic=True),
    "sqrt": _Function(np.sqrt, 1),
}
_ALLOWED_FUNCTIONS = ", ".join(sorted(FUNCTIONS))

_BINARY_OPERATORS: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: np.add,
    ast.Sub: np.subtract,
    ast.Mult: np.multiply,
    ast.Div: np.divide,
    ast.Pow: np.power,
}
_OPERATOR_SYMBOLS: dict[type[ast.AST], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.Pow: "**",
    ast.Mod: "%",
    ast.FloorDiv: "//",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.BitAnd: "&",
    ast.Not: "not",
    ast.Invert: "~",
}
_REFUSED_CONSTRUCTS: dict[type[ast.AST], str] = {
    ast.Attribute: "attribute access",
    ast.Subscript: "indexing",
    ast.Slice: "slicing",
    ast.Lambda: "lambda",
    ast.ListComp: "a comprehension",
    ast.SetComp: "a comprehension",
    ast.DictComp: "a comprehension",
    ast.GeneratorExp: "a comprehension",
    ast.Compare: "a comparison",
    ast.BoolOp: "a boolean operator (and, or)",
    ast.IfExp: "a conditional expression (if/else)",
    ast.NamedExpr: "assignment (:=)",
    ast.Tuple: "a tuple",
    ast.List: "a list",
    ast.Set: "a set",
    ast.Dict: "a dict",
    ast.JoinedStr: "an f-string",
    ast.Starred: "a starred argument",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield",
}
_ALLOWED_CHARACTERS = frozenset(string.printable)


@dataclass(frozen=True)
class Formula:
    """A checked formula; `variables` are the declared variables it uses."""

    text: str
    variables: frozenset[str]
    tree: ast.expr = field(repr=False, compare=False)

    @functools.cached_property
    def _function(self) -> Callable[[Mapping[str, Number]], Number]:
        """The tree as a function of the values, made on the first evaluation."""
        return _checked(self.tree)

    def evaluate(self, values: Mapping[str, Number]) -> Number:
        """The formula's value; if any value is a numpy array, an array of the broadcast shape."""
        missing = sorted(self.variables - values.keys())
        if missing:
            raise FormulaError(f"missing value for {_variables_phrase(missing)}")
        numbers = {name: _as_number(name, value) for name, value in values.items()}
        shape = _broadcast_shape(numbers)
        with np.errstate(all="ignore"):  # overflow and NaN are caught by the finite checks
            result = self._function(numbers)
        if shape is None:
            return float(result)
        return np.array(np.broadcast_to(result, shape), dtype=float)

    def __str__(self) -> str:
        return self.text


def parse(text: str, variables: Iterable[str]) -> Formula:
    """Check `text` against the language and the declared `variables`; FormulaError if it fails."""
    declared = _declared_names(variables)
    tree = _syntax_tree(_one_line(text))
    _check_size(tree)
    _check_node(tree, declared)
    return Formula(text=text, variables=_used_variables(tree), tree=tree)


def parse_for_display(text: str) -> Formula:
    """Check `text` against the language, taking every name it uses as declared: a stored
    formula's variables were checked when it was saved, and a printer needs only its tree."""
    tree = _syntax_tree(_one_line(text))
    _check_size(tree)
    names = [name for name in sorted(_used_variables(tree)) if _is_variable_name(name)]
    _check_node(tree, tuple(names))
    return Formula(text=text, variables=_used_variables(tree), tree=tree)


def validate(text: str, variables: Iterable[str]) -> None:
    """Raise FormulaError, with a message for the curator, unless `text` is a valid formula."""
    parse(text, variables)


def evaluate(text: str, variables_values: Mapping[str, Number]) -> Number:
    """Parse `text` with the given variables declared, and evaluate it at their values."""
    return parse(text, variables_values.keys()).evaluate(variables_values)


# Parsing ---------------------------------------------------------------------------------------


def _declared_names(variables: Iterable[str]) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(variables))
    for name in names:
        if not _is_variable_name(name):
            raise FormulaError(f"{name!r} cannot be a variable name")
    return names


def _is_variable_name(name: object) -> bool:
    return (
        isinstance(name, str)
        and name.isascii()
        and name.isidentifier()
        and not keyword.iskeyword(name)
        and name not in FUNCTIONS
    )


def _one_line(text: object) -> str:
    """The text with whitespace made spaces, so that positions are plain character counts."""
    if not isinstance(text, str):
        raise FormulaError(f"a formula must be text, not {type(text).__name__}")
    if len(text) > MAX_TEXT_LENGTH:
        raise FormulaError(f"formula is too long: {len(text)} characters (limit {MAX_TEXT_LENGTH})")
    if not text.strip():
        raise FormulaError("formula is empty")
    for position, character in enumerate(text, start=1):
        # ASCII only: Python would read e.g. 'ℕ' as 'N', so the text shown would not be the formula.
        if character not in _ALLOWED_CHARACTERS:
            raise FormulaError(f"character {character!r} at position {position} is not allowed")
        if character == "#":
            # A comment would hide the rest of the text shown to readers.
            raise FormulaError(f"comments ('#') are not allowed (at position {position})")
        if character == "\\":
            # Escapes and line continuations have no use here (newlines are free anyway).
            raise FormulaError(f"backslashes are not allowed (at position {position})")
    return "".join(" " if character.isspace() else character for character in text)


def _syntax_tree(line: str) -> ast.expr:
    indent = len(line) - len(line.lstrip(" "))  # Python refuses leading blanks; we skip them
    try:
        tree = ast.parse(line[indent:], mode="eval").body
    except SyntaxError as error:
        raise FormulaError(_syntax_message(error, indent, len(line))) from None
    except (ValueError, MemoryError, RecursionError):
        raise FormulaError("formula cannot be parsed") from None
    for node in ast.walk(tree):
        if hasattr(node, "col_offset"):
            node.col_offset += indent
            node.end_col_offset = (node.end_col_offset or 0) + indent
    return tree


def _syntax_message(error: SyntaxError, indent: int, length: int) -> str:
    detail = "" if error.msg == "invalid syntax" else f" ({error.msg})"
    if not error.offset or indent + error.offset > length:
        return f"formula ends unexpectedly{detail}"
    return f"invalid syntax at position {indent + error.offset}{detail}"


def _used_variables(tree: ast.expr) -> frozenset[str]:
    function_names = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    return frozenset(
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and id(node) not in function_names
    )


def _check_size(tree: ast.expr) -> None:
    """Limit nodes and nesting before the recursive checks and evaluation walk the tree."""
    nodes = sum(isinstance(node, ast.expr) for node in ast.walk(tree))
    if nodes > MAX_NODES:
        raise FormulaError(f"formula is too large: {nodes} terms (limit {MAX_NODES})")
    depth = _nesting_depth(tree)
    if depth > MAX_DEPTH:
        raise FormulaError(f"formula is nested too deeply: depth {depth} (limit {MAX_DEPTH})")


def _nesting_depth(tree: ast.expr) -> int:
    deepest = 0
    stack = [(tree, 1)]
    while stack:  # iterative: the tree has not been bounded yet
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + isinstance(child, ast.expr)))
    return deepest


def _check_node(node: ast.AST, declared: tuple[str, ...]) -> None:
    match node:
        case ast.Constant():
            _check_constant(node)
        case ast.Name():
            _check_name(node, declared)
        case ast.BinOp(left=left, op=op, right=right):
            if type(op) not in _BINARY_OPERATORS:
                _refuse_operator(op, node, allowed="+ - * / **")
            _check_node(left, declared)
            _check_node(right, declared)
        case ast.UnaryOp(op=op, operand=operand):
            if not isinstance(op, ast.USub | ast.UAdd):
                _refuse_operator(op, node, allowed="- +")
            _check_node(operand, declared)
        case ast.Call():
            _check_call(node, declared)
        case _:
            construct = _REFUSED_CONSTRUCTS.get(type(node), type(node).__name__)
            raise FormulaError(f"{construct} is not allowed {_at(node)}")


def _check_constant(node: ast.Constant) -> None:
    value = node.value
    if isinstance(value, bool) or not isinstance(value, int | float):
        kind = "text" if isinstance(value, str | bytes) else repr(value)
        if isinstance(value, complex):
            kind = "a complex number"
        raise FormulaError(f"{kind} is not allowed {_at(node)}; use numbers and variables")
    if not abs(value) <= MAX_CONSTANT:  # `not <=` also refuses inf, as from 1e999
        raise FormulaError(f"number {_at(node)} is too large (limit {MAX_CONSTANT:g})")


def _check_name(node: ast.Name, declared: tuple[str, ...]) -> None:
    if node.id in FUNCTIONS:
        raise FormulaError(f"'{node.id}' is a function {_at(node)}: call it as {node.id}(...)")
    if node.id not in declared:
        known = ", ".join(declared) or "none"
        raise FormulaError(f"unknown variable '{node.id}' {_at(node)} (declared: {known})")


def _check_call(node: ast.Call, declared: tuple[str, ...]) -> None:
    if not isinstance(node.func, ast.Name):
        _check_node(node.func, declared)  # refuses attribute access and the like, by name
        raise FormulaError(f"only named functions can be called {_at(node)}")
    name = node.func.id
    function = FUNCTIONS.get(name)
    if function is None:
        raise FormulaError(
            f"function '{name}' is not allowed {_at(node)} (allowed: {_ALLOWED_FUNCTIONS})"
        )
    if node.keywords:
        raise FormulaError(f"keyword arguments are not allowed {_at(node)}")
    for argument in node.args:
        if isinstance(argument, ast.Starred):
            raise FormulaError(f"a starred argument is not allowed {_at(argument)}")
    _check_arity(name, function, node)
    for argument in node.args:
        _check_node(argument, declared)


def _check_arity(name: str, function: _Function, node: ast.Call) -> None:
    count = len(node.args)
    if count == function.arguments or (function.variadic and count > function.arguments):
        return
    quantifier = "at least" if function.variadic else "exactly"
    plural = "s" if function.arguments != 1 else ""
    expected = f"{quantifier} {function.arguments} argument{plural}"
    raise FormulaError(f"{name}() takes {expected}, not {count} {_at(node)}")


def _refuse_operator(op: ast.AST, node: ast.AST, allowed: str) -> None:
    symbol = _OPERATOR_SYMBOLS.get(type(op), type(op).__name__)
    raise FormulaError(f"operator '{symbol}' is not allowed {_at(node)} (allowed: {allowed})")


def _at(node: ast.AST) -> str:
    return f"at position {getattr(node, 'col_offset', 0) + 1}"


# Evaluation ------------------------------------------------------------------------------------


_PLAIN_NUMBERS = frozenset({float, int, np.float64})


def _as_number(name: str, value: object) -> Number:
    if type(value) in _PLAIN_NUMBERS:  # most values: one type test, not the chain below
        if not math.isfinite(value):
            raise FormulaError(f"value of '{name}' is not a finite number")
        return np.float64(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
        number = value.astype(float)
    elif isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        number = np.float64(value)
    else:
        kind = f"array of {value.dtype}" if isinstance(value, np.ndarray) else type(value).__name__
        raise FormulaError(f"value of '{name}' must be a real number or array, not {kind}")
    if not _finite(number):
        raise FormulaError(f"value of '{name}' is not a finite number")
    return number


def _finite(value: Number) -> bool:
    """Every element finite. Most evaluations are of scalars (a plot point, a planner step):
    math.isfinite is about twenty times cheaper than numpy's reduction on one number."""
    if type(value) is np.float64:
        return math.isfinite(value)
    return bool(np.all(np.isfinite(value)))


def _any(condition: np.bool_ | np.ndarray) -> bool:
    return bool(condition) if type(condition) is np.bool_ else bool(np.any(condition))


def _broadcast_shape(numbers: Mapping[str, Number]) -> tuple[int, ...] | None:
    """The shape of the result when some values are arrays; None when all are scalars."""
    shapes = [np.shape(value) for value in numbers.values() if isinstance(value, np.ndarray)]
    if not shapes:
        return None
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise FormulaError(f"values have incompatible shapes: {shapes}") from None


Values = Mapping[str, Number]


def _checked(node: ast.expr) -> Callable[[Values], Number]:
    """The node as a function of the values, raising FormulaError where its result is not
    finite. Constants (bounded by MAX_CONSTANT), variables (checked by _as_number) and their
    negations are always finite: only operators and functions are checked."""
    compute = _compiled(node)
    if isinstance(node, ast.Constant | ast.Name | ast.UnaryOp):
        return compute
    where = _at(node)

    def checked(values: Values) -> Number:
        result = compute(values)
        if not _finite(result):
            raise FormulaError(f"result is not a finite number {where}")
        return result

    return checked


def _compiled(node: ast.expr) -> Callable[[Values], Number]:
    match node:
        case ast.Constant(value=value):
            constant = np.float64(value)
            return lambda values: constant
        case ast.Name(id=name):
            return lambda values: values[name]
        case ast.UnaryOp(op=ast.USub(), operand=operand):
            inner = _checked(operand)
            return lambda values: -inner(values)
        case ast.UnaryOp(operand=operand):  # unary plus: the only other one parse() lets through
            return _checked(operand)
        case ast.BinOp():
            return _compiled_binary(node)
        case ast.Call(func=ast.Name(id=name), args=arguments):
            implementation = FUNCTIONS[name].implementation
            parts = [_checked(argument) for argument in arguments]
            return lambda values: implementation(*[part(values) for part in parts])
    raise FormulaError(f"cannot evaluate {type(node).__name__} {_at(node)}")  # parse() refuses it


def _compiled_binary(node: ast.BinOp) -> Callable[[Values], Number]:
    left, right = _checked(node.left), _checked(node.right)
    operation = _BINARY_OPERATORS[type(node.op)]
    # Positions point at the divisor or exponent: that is where the fault shows.
    if isinstance(node.op, ast.Div):
        where = _at(node.right)

        def divide(values: Values) -> Number:
            numerator, divisor = left(values), right(values)
            if _any(divisor == 0):
                raise FormulaError(f"division by zero {where}")
            return operation(numerator, divisor)

        return divide
    if isinstance(node.op, ast.Pow):
        where = _at(node.right)

        def power(values: Values) -> Number:
            base, exponent = left(values), right(values)
            if _any(np.abs(exponent) > MAX_EXPONENT):
                raise FormulaError(f"exponent too large {where} (limit {MAX_EXPONENT})")
            return operation(base, exponent)

        return power
    return lambda values: operation(left(values), right(values))


def _variables_phrase(names: list[str]) -> str:
    plural = "s" if len(names) > 1 else ""
    return f"variable{plural} " + ", ".join(f"'{name}'" for name in names)
