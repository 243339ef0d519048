"""`judgelab data fetch`: benchmark files downloaded into data/raw and checked against their
checksums in data/sources.toml."""

from __future__ import annotations

import argparse


def cmd_fetch(args: argparse.Namespace) -> int:
    from judgelab.settings import Settings
    from tasks.sources import fetch

    for path in fetch(args.sources or None, Settings()):
        print(path)
    return 0
