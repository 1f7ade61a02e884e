"""Writes a generator's output files, or (--check) compares them with the committed ones."""

import os
import sys


def write_or_check(outputs, check, generator):
    """outputs: [(path, text)]. Returns the exit status: 1 when --check finds a stale file."""
    stale = []
    for path, text in outputs:
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(path)
            except FileNotFoundError:
                stale.append(path)
        else:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(f"wrote {path}")
    if stale:
        print(f"out of date (run dashboards/tools/{generator}): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0
