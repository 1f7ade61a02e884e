#!/usr/bin/env python3
"""Checks the include direction between the component folders.

The allowed dependencies are read from the component map in docs/DESIGN.md
(the table under "## Component map": column 1 the folder, last column the
folders it may include). Every `#include "DIR/..."` in DIR2/*.{h,cc} must name
DIR2 itself or a folder that DIR2 may include, and every top-level folder
holding C++ sources must be in the table. Prints each violation as
FILE:LINE: ... and exits 1; prints a summary and exits 0 when clean.

Usage: check_layering.py [REPO_ROOT]
       check_layering.py --self-test   (the check catches an upward include)
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/')
FOLDER = re.compile(r'`([A-Za-z0-9_]+)/`')


def read_map(design_path):
    """{folder: set(folders it may include)} from the component map table."""
    allowed = {}
    in_section = False
    with open(design_path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_section = line.strip() == "## Component map"
                continue
            if not in_section or not line.startswith("|"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            first = FOLDER.fullmatch(cells[0]) if cells else None
            if not first or first.group(1) == "tests":
                continue
            deps = set(FOLDER.findall(cells[-1]))
            allowed[first.group(1)] = deps
    return allowed


def source_folders(root):
    out = set()
    for entry in os.scandir(root):
        if not entry.is_dir() or entry.name.startswith(".") or entry.name in ("build", "tests"):
            continue
        for name in os.listdir(entry.path):
            if name.endswith((".cc", ".h", ".h.in")):
                out.add(entry.name)
                break
    return out


def self_test():
    """An upward include and an unmapped folder are caught; a downward one is not."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs"))
        with open(os.path.join(root, "docs", "DESIGN.md"), "w", encoding="utf-8") as f:
            f.write("## Component map\n| dir | owns | may include |\n|---|---|---|\n"
                    "| `low/` | x | (nothing) |\n| `high/` | y | `low/` |\n## Next\n"
                    "| `other/` | z | `high/` |\n")
        files = {"low/a.h": '#include "low/b.h"\n', "low/b.cc": '#include "high/c.h"\n',
                 "high/c.h": '#include "low/a.h"\n#include <vector>\n', "stray/d.cc": ""}
        for rel, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write(text)
        errors = check(root)
    want = ["stray/: not in the component map", "low/b.cc:1: low/ must not include high/"]
    ok = len(errors) == len(want) and all(any(w in e for e in errors) for w in want)
    print("self-test " + ("OK" if ok else "FAILED") + ": " + repr(errors))
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    errors = check(root)
    for e in errors:
        print(e)
    return 1 if errors else 0


def check(root):
    """The violations (empty list = clean); prints the summary when clean."""
    design = os.path.join(root, "docs", "DESIGN.md")
    allowed = read_map(design)
    if not allowed:
        return [f"{design}: no '## Component map' table found"]
    errors = []
    for folder in sorted(source_folders(root) - allowed.keys()):
        errors.append(f"{folder}/: not in the component map of docs/DESIGN.md (add a row with "
                      "what it owns and what it may include)")
    for folder in sorted(allowed.keys() - source_folders(root)):
        errors.append(f"docs/DESIGN.md: component map names {folder}/, which holds no sources")
    checked = 0
    for folder, deps in sorted(allowed.items()):
        base = os.path.join(root, folder)
        if not os.path.isdir(base):
            continue
        for dirpath, _, files in os.walk(base):
            for name in sorted(files):
                if not name.endswith((".cc", ".h", ".h.in")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        checked += 1
                        target = m.group(1)
                        if target == folder or target in deps or target not in allowed:
                            continue
                        may = ", ".join(sorted(deps)) or "nothing"
                        errors.append(f"{rel}:{lineno}: {folder}/ must not include {target}/ "
                                      f"({folder}/ may include: {may}; see the component map "
                                      "in docs/DESIGN.md)")
    if not errors:
        print(f"layering OK: {checked} includes in {len(allowed)} components follow docs/DESIGN.md")
    return errors


if __name__ == "__main__":
    sys.exit(main())
