"""Compile errors are values with a location until the edge (the CLI) shows them."""
from dataclasses import dataclass, field


@dataclass
class CompileError(Exception):
    message: str
    path: str
    line: int
    col: int
    source_line: str = ""
    more: list = field(default_factory=list)    # the module's other errors (other functions)

    def __str__(self):
        return self.format()

    def format(self) -> str:
        text = f"{self.path}:{self.line}:{self.col + 1}: error: {self.message}"
        if self.source_line:
            text += "\n" + self.source_line.rstrip("\n") + "\n" + " " * self.col + "^"
        for other in self.more:
            text += "\n" + other.format()
        if self.more:
            text += f"\n{1 + len(self.more)} errors"
        return text

    @staticmethod
    def of(errors: list) -> "CompileError":
        """One error carrying all of `errors` (the first first)."""
        first = errors[0]
        first.more = errors[1:]
        return first


class ErrorSink:
    """Where a pass reports a problem: knows the file and its lines, raises `CompileError`."""

    def __init__(self, path: str, source: str):
        self.path = path
        self.lines = source.splitlines()

    def error(self, message: str, loc) -> CompileError:
        line, col = loc
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return CompileError(message, self.path, line, col, text)
