"""A BibTeX syntax check that names each mistake with its line and a plain reason.

bibtexparser recovers from a broken entry by skipping it (or, for a missing comma, by reading the
next field into the previous value), so a typo can lose an entry without a word. This scanner walks
the file first, the way BibTeX reads it, and says what is wrong and where; an import goes ahead
only when it finds nothing. Pure: text in, messages out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The entry types of BibTeX and biblatex; anything else is most likely a typo (@artcle).
ENTRY_TYPES = frozenset(
    "article book booklet conference inbook incollection inproceedings manual mastersthesis misc "
    "phdthesis proceedings techreport unpublished online report thesis collection dataset software "
    "patent electronic www".split()
)
SPECIAL_BLOCKS = frozenset({"comment", "preamble", "string"})
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.:+-]*")
KEY_CHARS = re.compile(r"[^\s,{}()=\"#%]+")
BARE_VALUE = re.compile(r"[A-Za-z0-9_.:+-]+")
# A new entry at the start of a line: inside a value, it means the value was never closed.
ENTRY_START = re.compile(r"\n[ \t]*@[A-Za-z]+[ \t]*[{(]")
# "name =" at the start of a line inside a braced value: a field swallowed by an unclosed brace.
BRACE_OR_LINE = {"{": re.compile(r"[{}\n]"), "(": re.compile(r"[{}()\n]")}
QUOTE_BRACE_OR_LINE = re.compile(r'[{}"\n]')
FIELD_START = re.compile(r"\n[ \t]*[A-Za-z][A-Za-z0-9_.:+-]*[ \t]*=")


class SyntaxProblem(ValueError):
    def __init__(self, position: int, reason: str):
        super().__init__(reason)
        self.position, self.reason = position, reason


@dataclass
class Scanner:
    text: str
    pos: int = 0

    def line_of(self, position: int) -> int:
        return self.text.count("\n", 0, position) + 1

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def match(self, pattern: re.Pattern) -> str:
        found = pattern.match(self.text, self.pos)
        if not found:
            return ""
        self.pos = found.end()
        return found.group()

    def next_entry(self) -> int:
        """Where the next line starting with @ is (to carry on after a problem)."""
        found = re.compile(r"^[ \t]*@", re.MULTILINE).search(self.text, self.pos + 1)
        return found.start() if found else len(self.text)


def check_syntax(text: str) -> list[str]:
    """Every syntax problem of a BibTeX file, as 'line N: reason' (empty when it reads cleanly)."""
    scanner, problems, entries = Scanner(text), [], 0
    while True:
        scanner.skip_space()
        if not scanner.peek():
            break
        start = scanner.pos
        try:
            if scanner.peek() == "%":
                _skip_line(scanner)
            elif scanner.peek() == "@":
                entries += _read_block(scanner)
            else:
                raise SyntaxProblem(start, _stray_text(scanner))
        except SyntaxProblem as problem:
            problems.append(f"line {scanner.line_of(problem.position)}: {problem.reason}")
            scanner.pos = max(scanner.next_entry(), start + 1)
    if not text.strip():
        return ["line 1: the file is empty"]
    if not entries and not problems:
        problems.append("line 1: no BibTeX entry in the file (an entry starts with @type{key,)")
    return problems


def _skip_line(scanner: Scanner) -> None:
    end = scanner.text.find("\n", scanner.pos)
    scanner.pos = len(scanner.text) if end < 0 else end + 1


def _stray_text(scanner: Scanner) -> str:
    line_end = scanner.text.find("\n", scanner.pos)
    line = scanner.text[scanner.pos : None if line_end < 0 else line_end].strip()
    shown = line if len(line) <= 60 else line[:57] + "..."
    return (
        f"text outside any entry: {shown!r} (an entry starts with @type{{key, and a comment "
        "line with %); is this a BibTeX file?"
    )


def _read_block(scanner: Scanner) -> int:
    """Read one @... block; 1 if it is an entry, 0 for @comment, @preamble and @string."""
    at = scanner.pos
    scanner.pos += 1
    kind = scanner.match(NAME).lower()
    if not kind:
        raise SyntaxProblem(at, "'@' is not followed by an entry type such as @article")
    scanner.skip_space()
    opener = scanner.peek()
    if opener not in ("{", "("):
        raise SyntaxProblem(at, f"@{kind} is not followed by '{{'")
    if kind in SPECIAL_BLOCKS:
        _read_braced(scanner, at, f"the @{kind} block", closer="}" if opener == "{" else ")")
        return 0
    if kind not in ENTRY_TYPES:
        raise SyntaxProblem(
            at, f"unknown entry type @{kind} (known: {', '.join(sorted(ENTRY_TYPES))})"
        )
    scanner.pos += 1
    key = _read_key(scanner, at, kind)
    _read_fields(scanner, at, key, closer="}" if opener == "{" else ")")
    return 1


def _read_key(scanner: Scanner, at: int, kind: str) -> str:
    scanner.skip_space()
    key_start = scanner.pos
    key = scanner.match(KEY_CHARS)
    scanner.skip_space()
    if scanner.peek() == "=" or not key:
        raise SyntaxProblem(at, f"the @{kind} entry has no key (write @{kind}{{key, ...}})")
    if scanner.peek() != ",":
        found = scanner.peek() or "the end of the file"
        raise SyntaxProblem(key_start, f"missing comma after the key {key!r} (found {found!r})")
    scanner.pos += 1
    return key


def _read_fields(scanner: Scanner, at: int, key: str, closer: str) -> None:
    seen: set[str] = set()
    while True:
        scanner.skip_space()
        if scanner.peek() == closer:
            scanner.pos += 1
            return
        if not scanner.peek() or scanner.peek() == "@":
            raise SyntaxProblem(at, f"entry {key!r} is not closed: a '{closer}' is missing")
        name_start = scanner.pos
        name = scanner.match(NAME)
        if not name:
            raise SyntaxProblem(
                name_start, f"in entry {key!r}: expected a field name, found {scanner.peek()!r}"
            )
        if name.lower() in seen:
            raise SyntaxProblem(name_start, f"in entry {key!r}: field {name!r} appears twice")
        seen.add(name.lower())
        scanner.skip_space()
        if scanner.peek() != "=":
            raise SyntaxProblem(name_start, f"in entry {key!r}: missing '=' after field {name!r}")
        scanner.pos += 1
        _read_value(scanner, key, name)
        scanner.skip_space()
        following = scanner.peek()
        if not following or following == "@":
            raise SyntaxProblem(at, f"entry {key!r} is not closed: a '{closer}' is missing")
        if following == ",":
            scanner.pos += 1
        elif following != closer:
            raise SyntaxProblem(
                scanner.pos,
                f"in entry {key!r}: missing comma after the {name} field "
                f"(found {_word_at(scanner)!r})",
            )


def _word_at(scanner: Scanner) -> str:
    found = re.compile(r"\S{1,30}").match(scanner.text, scanner.pos)
    return found.group() if found else "the end of the file"


def _read_value(scanner: Scanner, key: str, name: str) -> None:
    """A value: parts in braces, in quotes or bare (numbers, @string names), joined by #."""
    while True:
        scanner.skip_space()
        start, opener = scanner.pos, scanner.peek()
        where = f"the {name} field of entry {key!r}"
        if opener == "{":
            _read_braced(scanner, start, where, closer="}")
            _refuse_swallowed_fields(scanner, start, where)
        elif opener == '"':
            _read_quoted(scanner, start, where)
        elif not scanner.match(BARE_VALUE):
            found = opener or "the end of the file"
            raise SyntaxProblem(start, f"{where} has no value after '=' (found {found!r})")
        scanner.skip_space()
        if scanner.peek() != "#":
            return
        scanner.pos += 1


def _read_braced(scanner: Scanner, start: int, where: str, closer: str) -> None:
    """From an opening brace (or parenthesis) to its match; braces nest."""
    depth, text = 0, scanner.text
    opener = "{" if closer == "}" else "("
    # Jump from one brace (or line start) to the next: a character loop is slow on big files.
    for found in BRACE_OR_LINE[opener].finditer(text, start):
        char, position = found.group(), found.start()
        if char in ("{", "("):
            depth += 1
        elif char in ("}", ")"):
            depth -= 1
            if depth == 0:
                scanner.pos = position + 1
                return
        elif ENTRY_START.match(text, position):
            break
    raise SyntaxProblem(start, f"unclosed brace: the '{opener}' that opens {where} is never closed")


def _refuse_swallowed_fields(scanner: Scanner, start: int, where: str) -> None:
    """A braced value that holds 'name =' lines and is not followed by ',' or '}' took in the
    fields after it: a '}' is missing inside it."""
    value = scanner.text[start : scanner.pos]
    after = scanner.text[scanner.pos :].lstrip()
    if FIELD_START.search(value) and not after.startswith((",", "}", ")", "#")):
        raise SyntaxProblem(
            start,
            f"unclosed brace: a '}}' is missing in {where} (its value runs on to line "
            f"{scanner.line_of(scanner.pos)} and takes in the fields after it)",
        )


def _read_quoted(scanner: Scanner, start: int, where: str) -> None:
    """From an opening quote to the next quote outside braces."""
    depth, text = 0, scanner.text
    for found in QUOTE_BRACE_OR_LINE.finditer(text, start + 1):
        char, position = found.group(), found.start()
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth <= 0:
            scanner.pos = position + 1
            return
        elif char == "\n" and ENTRY_START.match(text, position):
            break
    raise SyntaxProblem(start, f"unclosed quote: the '\"' that opens {where} is never closed")


ENTRY_START = re.compile(r"^[ \t]*@", re.MULTILINE)


def clean_pieces(text: str) -> list[tuple[str, int]]:
    """The pieces of a file (each from a line starting with @ to the next) that read cleanly on
    their own, each with the line it starts on: the entries a file with a syntax error still
    has (catalogue/bibtex.py reads them, so that every error is reported at once)."""
    starts = [found.start() for found in ENTRY_START.finditer(text)] + [len(text)]
    return [
        (text[start:end], text.count("\n", 0, start) + 1)
        for start, end in zip(starts, starts[1:], strict=False)
        if not check_syntax(text[start:end])
    ]


def by_line(errors: list[str]) -> list[str]:
    """Errors in the file's order (each names its line: 'line 10: ...', '... (line 15): ...')."""

    def line_of(error: str) -> int:
        found = re.search(r"\bline (\d+)", error)
        return int(found.group(1)) if found else 0

    return sorted(errors, key=line_of)


def describe_failed_block(block, first_line: int = 1) -> str:
    """What the parser could not read in a block, with its line in the file."""
    line = block.start_line + first_line
    error = getattr(block, "error", None)
    if type(block).__name__ == "DuplicateBlockKeyBlock":
        return f"entry {block.key!r} (line {line}): duplicate key in the file"
    lines = str(error or "").strip().splitlines()
    first_line = lines[0] if lines else "could not be parsed"
    return f"block at line {line}: {first_line}"
