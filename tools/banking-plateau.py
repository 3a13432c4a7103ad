#!/usr/bin/env python3
"""Sets the overload plateau of the banking set to FACTOR x nominal, in place (for a dispatched run).

Every scenario of manifests/sets/banking.yaml whose profile has a stage named "plateau" gets that
stage's rate set to FACTOR times the rate of its "nominal" stage, and max_in_flight raised to at
least plateau rate x call deadline (the runner refuses a ceiling below it). The nominal rate itself
is RESILIENCE_RATE_PER_SECOND's business (it scales every profile proportionally). Comments are not
kept: the rewritten file is for the CI checkout that runs it, not for committing.

  tools/banking-plateau.py --factor=3 manifests/sets/banking.yaml
"""
import math
import sys

import yaml


def fail(message):
    print(f"banking-plateau: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    factor = None
    paths = []
    for arg in argv:
        if arg.startswith("--factor="):
            try:
                factor = float(arg[len("--factor="):])
            except ValueError:
                fail(f"--factor: '{arg[len('--factor='):]}' is not a number")
        elif arg.startswith("--"):
            fail(f"unknown flag '{arg}' (known: --factor=F)")
        else:
            paths.append(arg)
    if factor is None or len(paths) != 1:
        fail("usage: banking-plateau.py --factor=F <banking.yaml>")
    if not (1.0 < factor <= 10.0):
        fail(f"--factor={factor:g}: must be above 1 (an overload) and at most 10")
    path = paths[0]
    with open(path) as f:
        doc = yaml.safe_load(f)
    defaults = doc.get("defaults", {})
    changed = 0
    for scenario in doc.get("scenarios", []):
        profile = scenario.get("profile")
        if not profile:
            continue
        stages = {stage.get("name"): stage for stage in profile}
        if "plateau" not in stages:
            continue
        if "nominal" not in stages:
            fail(f"{path}: scenario '{scenario['name']}' has a plateau but no stage named 'nominal'")
        rate = float(stages["nominal"]["rate"]) * factor
        stages["plateau"]["rate"] = round(rate, 3)
        deadline = float(scenario.get("call_deadline_seconds", defaults.get("call_deadline_seconds", 2)))
        ceiling = int(scenario.get("max_in_flight", defaults.get("max_in_flight", 0)))
        scenario["max_in_flight"] = max(ceiling, math.ceil(rate * deadline))
        changed += 1
    if changed == 0:
        fail(f"{path}: no scenario has a stage named 'plateau'")
    with open(path, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    print(f"banking-plateau: {changed} scenarios, plateau = {factor:g} x nominal")


if __name__ == "__main__":
    main(sys.argv[1:])
