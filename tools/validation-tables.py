# Markdown tables of `memwall validate --json` per model family, device and engine (issue #37), for
# docs/validation.md:
#   memwall validate --set moe-served --json > build.json
#   memwall validate --runs tests/data/heldout/aiconfigurator-moe-served.json --json > held.json
#   python3 tools/validation-tables.py build.json held.json
# Each row: runs, then for TPOT and TTFT the achievable median error and share within 25 % (of the runs on devices
# with microbenchmarks) and the share whose ideal time is not above the measured one; for the served TPOT (tpot +
# ttft / output tokens) its median error and share within 25 %.
import json, sys

def pct(x):
    return f"{100 * x:.0f} %"

def cells(g):
    if not g:
        return ["", "", ""]
    med = pct(g["median_error"]) if g["predicted"] else "no data"
    within = pct(g["within_25_percent"]) if g["predicted"] else ""
    return [med, within, f"{pct(g['ideal_not_slower'])} of {g['analysed']}"]

def table(report, by):
    groups = {}
    for g in report["groups"]:
        if g["by"] == by:
            groups.setdefault(g["name"], {})[g["metric"]] = g
    head = [by, "rows", "TPOT median error", "TPOT within 25 %", "TPOT ideal not slower",
            "TTFT median error", "TTFT within 25 %", "TTFT ideal not slower",
            "served TPOT median error", "served TPOT within 25 %"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, m in sorted(groups.items()):
        tpot, ttft, served = m.get("tpot_s"), m.get("ttft_s"), m.get("served_tpot_s")
        runs = max((x["analysed"] + x["failed"]) for x in m.values())
        lines.append("| " + " | ".join([name, str(runs)] + cells(tpot) + cells(ttft) + cells(served)[:2]) + " |")
    return "\n".join(lines)

def main(paths):
    for path in paths:
        report = json.load(open(path))
        failed = sum(1 for r in report["runs"] if "error" in r)
        print(f"### {path}: {len(report['runs'])} runs, {failed} not analysed\n")
        for by in ("metric", "family", "device", "framework"):
            print(table(report, by) + "\n")

if __name__ == "__main__":
    main(sys.argv[1:])
