"""`python -m gradguard.lsp [--tcp HOST:PORT]`: start the language server."""

from __future__ import annotations

import argparse
import sys

from gradguard.lsp.server import start


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the server (stdio unless `--tcp`)."""
    parser = argparse.ArgumentParser(prog="gradguard lsp", description=__doc__)
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    args = parser.parse_args(argv)
    sys.exit(start(args.tcp))


if __name__ == "__main__":
    main()
