#!/usr/bin/env python3
"""Checks a ctest run (its --output-junit file) against tests/expected-skips.txt, the tests that
may skip on a machine without a GPU (docs/working.md, "Expected skips").

    scripts/check_expected_skips.py JUNIT [LIST]

Fails (exit 1), naming each, on a test that skipped (or was not run) and is not listed, and on a
listed name that is no test of the run (a stale entry hides nothing, but says the list is not
kept). A listed test that ran is fine here (a machine may have what it needs); on the GPU host
scripts/gpu-test.sh refuses every skip. Exit 2: a file that cannot be read.
"""
import sys
import xml.etree.ElementTree as ET

LIST = "tests/expected-skips.txt"


def listed(path):
    names = []
    with open(path) as f:
        for line in f:
            name = line.split("#", 1)[0].strip()
            if name:
                names.append(name)
    return names


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    list_path = sys.argv[2] if len(sys.argv) == 3 else LIST
    try:
        suite = ET.parse(sys.argv[1]).getroot()
        allowed = set(listed(list_path))
    except (OSError, ET.ParseError) as e:
        print(f"check_expected_skips: {e}", file=sys.stderr)
        return 2
    ran, skipped = set(), {}
    for case in suite.iter("testcase"):
        name = case.get("name")
        ran.add(name)
        s = case.find("skipped")
        if s is not None or case.get("status") == "notrun":
            skipped[name] = s.get("message", "") if s is not None else "not run"
    problems = [f"{n} skipped ({why}) and is not in {list_path}" for n, why in sorted(skipped.items())
                if n not in allowed]
    problems += [f"{n} is listed in {list_path} but is no test of this run" for n in sorted(allowed - ran)]
    for p in problems:
        print(f"check_expected_skips: {p}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_expected_skips: {len(ran)} tests, {len(skipped)} skipped, all of them listed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
