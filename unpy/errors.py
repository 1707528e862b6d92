"""Compile errors are values with a location until the edge (the CLI) shows them."""
from dataclasses import dataclass


@dataclass
class CompileError(Exception):
    message: str
    path: str
    line: int
    col: int
    source_line: str = ""

    def __str__(self):
        return self.format()

    def format(self) -> str:
        text = f"{self.path}:{self.line}:{self.col + 1}: error: {self.message}"
        if self.source_line:
            text += "\n" + self.source_line.rstrip("\n") + "\n" + " " * self.col + "^"
        return text


class ErrorSink:
    """Where a pass reports a problem: knows the file and its lines, raises `CompileError`."""

    def __init__(self, path: str, source: str):
        self.path = path
        self.lines = source.splitlines()

    def error(self, message: str, loc) -> CompileError:
        line, col = loc
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return CompileError(message, self.path, line, col, text)
