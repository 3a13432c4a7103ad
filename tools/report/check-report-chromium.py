#!/usr/bin/env python3
"""Renders the HTML run reports of a real run in headless Chromium and checks what a reader sees.

For every scenario folder of a set (one holding report.html), and for the set's index.html:
  - the screenshot is not blank (more than MIN_COLOURS distinct colours; PNG decoded here, no PIL);
  - the DOM Chromium built has one plot each of throughput, latency and lag (and lost-promises when
    the folder has lost-promises.csv, recovery when its time-to-recover gate timed rounds, the
    breakpoint's goodput curve when it has breakpoint.csv), one chaos-window per
    fault span of chaos-timeline.csv on each plot, and a gate table whose FAIL / PASS / N/A rows
    match verdict.txt's lines; the page's verdict (PASS, FAIL or RED-AS-EXPECTED) matches the
    folder's verdict.txt, failures.txt and gates.json's expected_red;
  - the index lists every scenario folder, with as many FAIL rows as red folders (a seeded defect
    caught is not red).
Then it shows the check can fail: a blank page and a report with one FAIL row turned PASS must both
be rejected.

  check-report-chromium.py --artifacts=build/artifacts/example        # after `ctest --preset example`
  check-report-chromium.py --suite=build/suites/example/example_suite \
      --manifest=manifests/sets/example.yaml --set=example --filter='ExampleSuite.DISABLED_StallBurst'

Exit 0 when every check holds, 1 when one does not, 2 for bad arguments or a missing tool.
"""
import argparse
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

MIN_COLOURS = 10
WINDOW = "1000,1000"


def chromium_binary():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(chromium, profile, args, timeout=120):
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--user-data-dir=" + profile, "--window-size=" + WINDOW] + args
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=timeout, check=False)


def png_colours(path):
    """Distinct colours of an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium writes)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(path + ": not a PNG")
    pos, idat, width, height, bpp = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace != 0:
                raise ValueError("%s: PNG depth %d colour type %d interlace %d not handled" % (path, depth, colour, interlace))
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(height):
        base = y * (stride + 1)
        ftype = raw[base]
        row = bytearray(raw[base + 1:base + 1 + stride])
        if ftype == 1:
            for i in range(bpp, stride):
                row[i] = (row[i] + row[i - bpp]) & 0xFF
        elif ftype == 2:
            for i in range(stride):
                row[i] = (row[i] + prev[i]) & 0xFF
        elif ftype == 3:
            for i in range(stride):
                left = row[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif ftype == 4:
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                row[i] = (row[i] + pred) & 0xFF
        for x in range(0, stride, bpp):
            colours.add(bytes(row[x:x + 3]))
        prev = row
    return len(colours)


class DomCounter(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.plots = []          # data-plot of each svg.plot, in order
        self.windows = []        # chaos-window count per plot
        self.gates = {}          # data-result -> rows
        self.scenarios = {}      # index rows: data-result -> rows
        self.verdict = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "body":
            self.verdict = a.get("data-verdict")
        elif tag == "svg" and "plot" in classes:
            self.plots.append(a.get("data-plot"))
            self.windows.append(0)
        elif tag == "rect" and "chaos-window" in classes and self.windows:
            self.windows[-1] += 1
        elif tag == "tr" and "gate" in classes:
            self.gates[a.get("data-result")] = self.gates.get(a.get("data-result"), 0) + 1
        elif tag == "tr" and "scenario" in classes:
            self.scenarios[a.get("data-result")] = self.scenarios.get(a.get("data-result"), 0) + 1


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        return None


def expected_spans(folder):
    csv = read(os.path.join(folder, "chaos-timeline.csv")) or ""
    spans = 0
    for line in csv.splitlines()[1:]:
        fields = line.split(",")
        if len(fields) > 2 and fields[2] in ("apply", "action"):
            spans += 1
    return spans


def expected_gates(folder):
    counts = {}
    for line in (read(os.path.join(folder, "verdict.txt")) or "").splitlines():
        word = line.split(" ", 1)[0]
        if word in ("PASS", "FAIL", "N/A"):
            counts[word] = counts.get(word, 0) + 1
    return counts


def folder_judgement(folder):
    """PASS, FAIL or RED-AS-EXPECTED, as report::JudgeRun (scenario_reporter.h) says, from the files:
    RED-AS-EXPECTED when gates.json names expected-red gates, exactly those are red in verdict.txt,
    and every failures.txt line is one of theirs."""
    red = set()
    for line in (read(os.path.join(folder, "verdict.txt")) or "").splitlines():
        if line.startswith("FAIL "):
            red.add(line[5:].split(": ", 1)[0])
    failures = [l for l in (read(os.path.join(folder, "failures.txt")) or "").splitlines() if l]
    try:
        expected = set(json.loads(read(os.path.join(folder, "gates.json")) or "{}").get("expected_red") or [])
    except ValueError:
        expected = set()
    if not expected:
        return "PASS" if not red and not failures else "FAIL"
    if red == expected and all(any(l.startswith(g + ": ") for g in expected) for l in failures):
        return "RED-AS-EXPECTED"
    return "FAIL"


def has_recovery_rounds(folder):
    """Whether gates.json's time-to-recover gate timed fault rounds (the page's recovery stop-clock)."""
    try:
        gates = json.loads(read(os.path.join(folder, "gates.json")) or "{}").get("gates") or []
    except ValueError:
        return False
    return any(g.get("name") == "time-to-recover" and g.get("result") != "N/A"
               and "time_to_recover_ms_round_1" in (g.get("figures") or {}) for g in gates)


def render(chromium, profile, page, png):
    url = "file://" + os.path.abspath(page)
    shot = run_chromium(chromium, profile, ["--screenshot=" + png, url])
    if shot.returncode != 0 or not os.path.exists(png):
        return None, "chromium --screenshot failed (exit %d)" % shot.returncode
    dom = run_chromium(chromium, profile, ["--dump-dom", url])
    if dom.returncode != 0:
        return None, "chromium --dump-dom failed (exit %d)" % dom.returncode
    counter = DomCounter()
    counter.feed(dom.stdout.decode("utf-8", "replace"))
    return counter, None


def check_scenario(chromium, profile, folder, page=None):
    """Problems of one scenario's report (page defaults to folder/report.html)."""
    page = page or os.path.join(folder, "report.html")
    png = os.path.join(profile, "shot.png")
    if os.path.exists(png):
        os.remove(png)
    dom, err = render(chromium, profile, page, png)
    if err:
        return [err], 0
    problems = []
    colours = png_colours(png)
    if colours <= MIN_COLOURS:
        problems.append("the screenshot is blank: %d distinct colour(s)" % colours)
    want_plots = ["lag", "latency", "throughput"]
    if os.path.exists(os.path.join(folder, "lost-promises.csv")):
        want_plots.append("lost-promises")
    if has_recovery_rounds(folder):
        want_plots.append("recovery")
    if os.path.exists(os.path.join(folder, "breakpoint.csv")):
        want_plots.append("curve-breakpoint-goodput")  # a suite's curve: its own x axis, no chaos windows
    if sorted(dom.plots) != sorted(want_plots):
        problems.append("plots %s, want one each of %s" % (dom.plots, ", ".join(want_plots)))
    spans = expected_spans(folder)
    timeline_windows = [w for plot, w in zip(dom.plots, dom.windows) if not (plot or "").startswith("curve-")]
    if any(w != spans for w in timeline_windows) or not timeline_windows:
        problems.append("chaos windows per plot %s, want %d (the fault spans of chaos-timeline.csv)" % (timeline_windows, spans))
    want = expected_gates(folder)
    for word in ("FAIL", "PASS", "N/A"):
        if dom.gates.get(word, 0) != want.get(word, 0):
            problems.append("%d %s gate row(s), verdict.txt has %d" % (dom.gates.get(word, 0), word, want.get(word, 0)))
    verdict = folder_judgement(folder)
    if dom.verdict != verdict:
        problems.append("page verdict %s, the folder's is %s" % (dom.verdict, verdict))
    return problems, colours


def check_set(chromium, profile, set_dir):
    failures = []
    scenarios = sorted(d for d in os.listdir(set_dir) if os.path.exists(os.path.join(set_dir, d, "report.html")))
    if not scenarios:
        return ["%s: no scenario folder with a report.html" % set_dir], scenarios
    for name in scenarios:
        folder = os.path.join(set_dir, name)
        problems, colours = check_scenario(chromium, profile, folder)
        for p in problems:
            failures.append("%s: %s" % (name, p))
        print("check-report: %s: %d colours, plots, %d fault span(s) per plot, gates %s: %s" % (
            name, colours, expected_spans(folder), expected_gates(folder), "ok" if not problems else "NOT ok"))
    index = os.path.join(set_dir, "index.html")
    png = os.path.join(profile, "index.png")
    dom, err = render(chromium, profile, index, png)
    if err:
        failures.append("index.html: " + err)
    else:
        red = sum(1 for n in scenarios if folder_judgement(os.path.join(set_dir, n)) == "FAIL")
        if sum(dom.scenarios.values()) != len(scenarios) or dom.scenarios.get("FAIL", 0) != red:
            failures.append("index.html: rows %s, want %d of which %d FAIL" % (dom.scenarios, len(scenarios), red))
        if png_colours(png) <= MIN_COLOURS:
            failures.append("index.html: the screenshot is blank")
    return failures, scenarios


def check_can_fail(chromium, profile, set_dir, scenarios):
    """The check rejects a blank page and a report that miscounts the gates."""
    failures = []
    folder = os.path.join(set_dir, scenarios[0])
    blank = os.path.join(profile, "blank.html")
    with open(blank, "w", encoding="utf-8") as f:
        f.write("<!DOCTYPE html><html><body></body></html>\n")
    problems, _ = check_scenario(chromium, profile, folder, blank)
    if not any("blank" in p for p in problems) or not any("plots" in p for p in problems):
        failures.append("a blank page was not rejected as blank and without plots: %s" % problems)
    page = read(os.path.join(folder, "report.html"))
    for word, other in (("FAIL", "PASS"), ("PASS", "FAIL")):
        marker = '<tr class="gate" data-result="%s"' % word
        if marker in page:
            tampered = os.path.join(profile, "tampered.html")
            with open(tampered, "w", encoding="utf-8") as f:
                f.write(page.replace(marker, '<tr class="gate" data-result="%s"' % other, 1))
            problems, _ = check_scenario(chromium, profile, folder, tampered)
            if not any("gate row" in p for p in problems):
                failures.append("a report with one %s row turned %s was not rejected: %s" % (word, other, problems))
            break
    print("check-report: the check rejects a blank page and a miscounted gate table: %s" % ("ok" if not failures else "NOT ok"))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--artifacts", help="a set's artifacts folder, e.g. build/artifacts/example")
    ap.add_argument("--suite", help="a suite binary to run first into a scratch artifacts folder")
    ap.add_argument("--manifest", help="the set manifest for --suite")
    ap.add_argument("--set", default="example")
    ap.add_argument("--filter", default="*", help="--gtest_filter for --suite")
    args = ap.parse_args()
    chromium = chromium_binary()
    if chromium is None:
        print("check-report: chromium is not installed (Debian package chromium; tools/setup.sh --report)", file=sys.stderr)
        return 2
    if bool(args.artifacts) == bool(args.suite) or (args.suite and not args.manifest):
        print("check-report: give --artifacts=DIR, or --suite=BINARY with --manifest=FILE", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="aftershock-chromium-") as work:
        profile = os.path.join(work, "profile")
        os.makedirs(profile)
        set_dir = args.artifacts
        if args.suite:
            root = os.path.join(work, "artifacts")
            cmd = [args.suite, "--gtest_also_run_disabled_tests", "--gtest_filter=" + args.filter,
                   "--aftershock_set=" + args.set, "--aftershock_manifest=" + args.manifest,
                   "--aftershock_artifacts_dir=" + root]
            run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600, check=False)
            # A red scenario is fine here (its report must say so); a suite that wrote nothing is not.
            print("check-report: %s exited %d" % (os.path.basename(args.suite), run.returncode))
            set_dir = os.path.join(root, args.set)
            if not os.path.isdir(set_dir):
                sys.stdout.write(run.stdout.decode("utf-8", "replace")[-4000:])
                print("check-report: the suite wrote no %s" % set_dir, file=sys.stderr)
                return 1
        failures, scenarios = check_set(chromium, profile, set_dir)
        if scenarios:
            failures += check_can_fail(chromium, profile, set_dir, scenarios)
    for f in failures:
        print("check-report: FAIL " + f, file=sys.stderr)
    print("check-report: %d scenario report(s) checked, %d problem(s)" % (len(scenarios), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
