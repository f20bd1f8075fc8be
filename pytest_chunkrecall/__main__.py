"""``python -m pytest_chunkrecall``: work with gold files and reports outside a pytest run."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import boundaries, shards, validate
from .errors import ChunkrecallError
from .importing import cli as importing


@dataclass(frozen=True)
class Command:
    """A subcommand: its name, one line of help, how it reads its arguments, and what it does.

    ``run`` returns the exit status; a :class:`ChunkrecallError` it raises is
    printed as one line and exits with status 2.
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


COMMANDS: tuple[Command, ...] = (
    Command("merge", shards.MERGE_HELP, shards.configure_merge, shards.run_merge),
    Command("compare", shards.COMPARE_HELP, shards.configure_compare, shards.run_compare),
    Command("import", importing.IMPORT_HELP, importing.configure_import, importing.run),
    Command("export", importing.EXPORT_HELP, importing.configure_export, importing.run),
    Command("chunks", boundaries.CHUNKS_HELP, boundaries.configure_chunks, boundaries.run_chunks),
    Command("validate", validate.VALIDATE_HELP, validate.configure_validate, validate.run_validate),
)


def parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    top = argparse.ArgumentParser(
        prog="python -m pytest_chunkrecall",
        description="Gold files and reports of pytest-chunkrecall, outside a pytest run",
    )
    commands = top.add_subparsers(title="commands", metavar="COMMAND", required=True)
    for command in COMMANDS:
        sub = commands.add_parser(command.name, help=command.help, description=command.help)
        command.configure(sub)
        sub.set_defaults(command=command)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` names; the exit status: 0 done, 1 done with misses, 2 bad input."""
    args = parser().parse_args(argv)
    try:
        return args.command.run(args)  # type: ignore[no-any-return]
    except ChunkrecallError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
