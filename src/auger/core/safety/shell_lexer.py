"""Shell words as the shell reads them: `lex(text)` splits one command line into words (quotes
removed; `$(...)`, `${...}`, backticks and `<(...)` kept as written), redirection operators and
separators; `closing(text, i)` finds the end of a substitution. Standard library only."""

from __future__ import annotations

import re

Token = tuple[str, str]  # (kind, text), kind: "word" | "redirect" | "sep"
_REDIRECT_OP = re.compile(r"&>>?|\d*(?:>>|>\||>&|>|<<<|<<-?|<>|<&|<)")
_TWO_CHAR_SEPS = ("&&", "||", "|&", ";;")


def closing(text: str, start: int) -> int | None:
    """Index of the character closing the substitution opened at `start` (`$(`, `<(`, `` ` ``)."""
    if text[start] == "`":
        j = start + 1
        while j < len(text):
            if text[j] == "\\":
                j += 2
                continue
            if text[j] == "`":
                return j
            j += 1
        return None
    depth, j = 0, start + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"":
            end = text.find(c, j + 1)
            if end < 0:
                return None
            j = end + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def lex(text: str) -> list[Token]:
    """The tokens of `text`: words with their quotes removed (`$(...)`, `${...}`, backticks and
    `<(...)` kept as written), redirection operators with their fd (`>`, `2>>`, `&>`, `>&`, `<<`),
    separators (`;`, `&&`, `|`, `(`, newline, ...). Lenient: an unclosed quote or substitution
    runs to the end of the text."""
    return _Lexer(str(text)).run()


def _find(text: str, char: str, start: int) -> int:
    end = text.find(char, start)
    return len(text) if end < 0 else end


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0
        self.tokens: list[Token] = []
        self.buf: list[str] = []
        self.started = False  # a word has begun (`""` is a word too)

    def run(self) -> list[Token]:
        while self.i < len(self.text):
            self._step()
        self._flush()
        return self.tokens

    def _flush(self) -> None:
        if self.started:
            self.tokens.append(("word", "".join(self.buf)))
        self.buf, self.started = [], False

    def _take(self, piece: str, end: int) -> None:
        self.buf.append(piece)
        self.started, self.i = True, end

    def _step(self) -> None:
        text, i = self.text, self.i
        c = text[i]
        if c in " \t":
            self._flush()
            self.i += 1
        elif c == "\\":
            if text.startswith("\n", i + 1):  # a line continuation
                self.i += 2
            else:
                self._take(text[i + 1 : i + 2], i + 2)
        elif c == "'":
            end = _find(text, "'", i + 1)
            self._take(text[i + 1 : end], end + 1)
        elif c == '"':
            self._double_quoted()
        elif c == "`" or (c in "$<>" and text.startswith("(", i + 1) and (c == "$" or not self.started)):
            shut = closing(text, i)
            stop = len(text) if shut is None else shut + 1
            self._take(text[i:stop], stop)
        elif c == "$" and text.startswith("{", i + 1):
            end = _find(text, "}", i)
            self._take(text[i : end + 1], end + 1)
        elif c == "#" and not self.started:
            self.i = _find(text, "\n", i)
        else:
            self._operator(c)

    def _operator(self, c: str) -> None:
        text, i = self.text, self.i
        match = _REDIRECT_OP.match(text, i) if c in "<>&" or (c.isdigit() and not self.started) else None
        if match is not None:
            self._flush()
            self.tokens.append(("redirect", match.group()))
            self.i = match.end()
        elif c in ";|&()\n":
            self._flush()
            op = text[i : i + 2] if text[i : i + 2] in _TWO_CHAR_SEPS else c
            self.tokens.append(("sep", op))
            self.i += len(op)
        else:
            self._take(c, i + 1)

    def _double_quoted(self) -> None:
        text, j = self.text, self.i + 1
        out: list[str] = []
        while j < len(text) and text[j] != '"':
            if text[j] == "\\" and text[j + 1 : j + 2] in ('"', "\\", "$", "`", "\n"):
                out.append(text[j + 1].replace("\n", ""))
                j += 2
                continue
            if text[j] == "`" or text.startswith("$(", j):
                end = closing(text, j)
                stop = len(text) if end is None else end + 1
                out.append(text[j:stop])
                j = stop
                continue
            out.append(text[j])
            j += 1
        self._take("".join(out), j + 1)
