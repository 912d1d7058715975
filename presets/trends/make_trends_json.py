#!/usr/bin/env python3
"""Regenerates presets/trends/*.json from the CSVs read off the figures of Gholami et al., "AI and Memory Wall"
(arXiv:2403.14123, IEEE Micro 44(3), 2024). Usage: make_trends_json.py DATA_DIR OUT_DIR
DATA_DIR holds hardware_trends.csv, models_params_trends.csv and models_training_compute.csv (see README.md)."""
import csv
import json
import os
import sys

PAPER = 'Gholami, Yao, Kim, Hooper, Mahoney, Keutzer, "AI and Memory Wall", arXiv:2403.14123 (IEEE Micro 44(3), 2024)'
READOFF = "markers read off the figure's vector PDF, calibrated against the axis ticks (~5 significant digits)"


def num(x):
    """A number as compact JSON text without float noise (10 significant digits)."""
    s = "{:.10g}".format(float(x))
    return s


def dump_point(p):
    parts = []
    for k, v in p.items():
        if isinstance(v, bool):
            parts.append(f'"{k}": {"true" if v else "false"}')
        elif isinstance(v, (int, float)):
            parts.append(f'"{k}": {num(v)}')
        elif isinstance(v, str) and k == "year":
            parts.append(f'"{k}": {v}')  # keep the CSV's decimal year digits verbatim
        else:
            parts.append(f'"{k}": {json.dumps(v, ensure_ascii=False)}')
    return "{" + ", ".join(parts) + "}"


def write(path, top, series):
    lines = ["{"]
    for k, v in top.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
    lines.append('  "series": [')
    for si, s in enumerate(series):
        lines.append("    {")
        for k, v in s.items():
            if k == "points":
                continue
            lines.append(f"      {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
        lines.append('      "points": [')
        pts = sorted(s["points"], key=lambda p: float(p["year"]))
        for pi, p in enumerate(pts):
            lines.append("        " + dump_point(p) + ("," if pi + 1 < len(pts) else ""))
        lines.append("      ]")
        lines.append("    }" + ("," if si + 1 < len(series) else ""))
    lines.append("  ]")
    lines.append("}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


# Short names for unlabelled hardware markers whose identification is a guess (the full guess stays in
# "identification"); the "?" marks them as tentative.
HW_NAMES = {
    ("hw_peak_flops", 13): "Xeon Phi 7120 (KNC)?",
    ("hw_peak_flops", 14): "Xeon Phi 7290 (KNL)?",
    ("hw_peak_flops", 15): "GeForce 8800 GTX / Tesla C870?",
    ("hw_peak_flops", 22): "GeForce GTX Titan X?",
    ("hw_peak_flops", 24): "Titan X (Pascal)?",
    ("hw_peak_flops", 25): "Tesla P100?",
    ("hw_peak_flops", 26): "Tesla V100?",
    ("hw_peak_flops", 33): "Radeon Pro Duo (Fiji)?",
    ("hw_peak_flops", 34): "Radeon RX Vega 64?",
    ("hw_peak_flops", 35): "TPUv2?",
    ("dram_bw", 6): "GDDR5X card (e.g. GTX 1080)?",
    ("dram_bw", 7): "Tesla V100?",
    ("dram_bw", 8): "GDDR6 card (e.g. RTX 2080)?",
    ("dram_bw", 9): "A100 40GB?",
    ("dram_bw", 10): "RTX 3080?",
    ("dram_bw", 11): "A100 80GB PCIe?",
    ("interconnect_bw", 5): "PCIe 4.0?",
    ("interconnect_bw", 6): "NVLink 2.0?",
    ("interconnect_bw", 8): "NVLink 3.0?",
    ("interconnect_bw", 9): "PCIe 6.0?",
}
GROUP_SHORT = {
    "likely Intel Xeon CPU series (Jan-1 dates; cf. K. Rupp dataset)": "likely Intel Xeon",
    "likely NVIDIA GPU series": "likely NVIDIA GPU",
    "likely AMD GPU series": "likely AMD GPU",
}
UNIT_SCALE = {"GFLOPS": 1e9, "GB/s": 1e9, "Gb/s per lane (GT/s)": 1e9}


def hardware(data, out):
    rows = list(csv.DictReader(open(os.path.join(data, "hardware_trends.csv"), encoding="utf-8")))
    meta = {
        "hw_peak_flops": dict(
            id="hw_peak_flops", name="Peak FLOPS of server hardware", unit="FLOP/s",
            note="Peak arithmetic throughput per chip (CPUs, GPUs, TPUs), 1997-2022. The series MIXES PRECISIONS: "
                 "FP32 (single-precision) peaks for the older CPUs and GPUs, FP16/BF16 tensor-core or matrix-unit "
                 "peaks for P100, V100, A100, H100 and the TPUs - part of the 3.0x per 2 years comes from the switch "
                 "to lower precision. 'normalized' (relative to the R10000, as plotted) is authoritative; 'value' is "
                 "normalized x an inferred base of 0.339 GFLOPS, which reproduces P100 21.2, V100 112, A100 312 and "
                 "H100 989.5 TFLOPS.",
            paper_factor_per_2_years=3.0),
        "dram_bw": dict(
            id="dram_bandwidth", name="DRAM bandwidth", unit="B/s",
            note="Memory bandwidth per device by DRAM generation (GDDR3 ... HBM2E), 2003-2022. 'normalized' "
                 "(relative to the first GDDR3 point, as plotted) is authoritative; 'value' is normalized x an "
                 "inferred base of 15.2 GB/s.",
            paper_factor_per_2_years=1.6),
        "interconnect_bw": dict(
            id="interconnect_bandwidth", name="Interconnect bandwidth", unit="bit/s per lane",
            note="Per-lane signalling rate of PCIe and NVLink generations (GT/s ~ Gb/s per lane), 2003-2022: NOT a "
                 "device's total bandwidth. 'normalized' (relative to PCIe 1.0a, as plotted) is authoritative; "
                 "'value' is normalized x an inferred base of 2.5 Gb/s per lane.",
            paper_factor_per_2_years=1.4),
    }
    series = []
    for key in ("hw_peak_flops", "dram_bw", "interconnect_bw"):
        m = meta[key]
        pts = []
        srcs = set()
        for r in rows:
            if r["series"] != key:
                continue
            idx = int(r["index_in_pdf"])
            label = r["label_in_figure"].strip()
            ident = r["tentative_identification"].strip()
            group = r["group_guess"].strip()
            year = r["year_decimal"]
            if label:
                name = label
            elif (key, idx) in HW_NAMES:
                name = HW_NAMES[(key, idx)]
            elif group:
                name = f"unlabelled ({GROUP_SHORT.get(group, group)}), {year[:4]}"
            else:
                name = f"unlabelled marker, {year[:4]}"
            p = {"name": name, "date": r["date"], "year": year,
                 "value": float(r["inferred_abs_value"]) * UNIT_SCALE[r["inferred_abs_unit"]],
                 "normalized": float(r["normalized_value"])}
            if label:
                p["label_in_figure"] = label
            if ident:
                p["identification"] = ident
            if group:
                p["group"] = group
            p["marker"] = idx
            pts.append(p)
            srcs.add(r["source"])
        assert len(srcs) == 1
        s = dict(m)
        s["source"] = f"{PAPER}, hardware-scaling figure; {READOFF}: {srcs.pop()}"
        s["fit"] = True
        s["points"] = pts
        series.append(s)
    write(os.path.join(out, "hardware.json"),
          {"kind": "trends", "schema": 1,
           "notes": "Generated by make_trends_json.py from hardware_trends.csv. Each series is one panel line of "
                    "the paper's hardware-scaling figure."},
          series)


def model_params(data, out):
    rows = list(csv.DictReader(open(os.path.join(data, "models_params_trends.csv"), encoding="utf-8")))
    meta = {
        "transformer_params": dict(
            id="transformer_params", name="Transformer model parameters", unit="parameters",
            note="Parameter counts of state-of-the-art Transformer models, 2017-2021. Points with in_fit false "
                 "(ALBERT xxl, ELECTRA Large) appear only in the 2021 version of the figure and are left out of "
                 "the 410x per 2 years line.",
            paper_factor_per_2_years=410.0, fit=True),
        "cv_params": dict(
            id="cv_params", name="CV model parameters", unit="parameters",
            note="Parameter counts of computer-vision models, 2015-2016; the figure draws no growth line for them.",
            fit=False),
        "recsys_params": dict(
            id="recsys_params", name="Recommendation model parameters", unit="parameters",
            note="Baidu recommendation-system models; the figure draws no growth line for them (both markers share "
                 "one date).",
            fit=False),
        "ai_hw_memory": dict(
            id="ai_hw_memory", name="AI accelerator memory (parameter equivalent)", unit="parameters",
            note="Memory capacity of one accelerator, plotted on the parameter axis as memory bytes / 6 (6 bytes "
                 "per parameter), e.g. 80 GB -> 13.3 billion. The paper states 2x per 2 years for single-GPU memory; "
                 "a least-squares fit of these 7 markers gives ~1.9x.",
            paper_factor_per_2_years=2.0, fit=True),
    }
    series = []
    for key in ("transformer_params", "cv_params", "recsys_params", "ai_hw_memory"):
        m = dict(meta[key])
        fit = m.pop("fit")
        pts = []
        srcs = []
        for r in rows:
            if r["series"] != key:
                continue
            only2021 = "only in 2021" in r["notes"]
            if key == "ai_hw_memory":
                value = float(r["hw_memory_GB"]) * 1e9 / 6
            else:
                value = float(r["params_billion"]) * 1e9
            p = {"name": r["name"], "date": r["date"], "year": r["year_decimal"], "value": value}
            if key == "ai_hw_memory":
                p["note"] = f"{r['hw_memory_GB']} GB of accelerator memory, plotted as GB / 6"
            if only2021:
                p["note"] = "only in the 2021 version of the figure (dropped in the 2023 version)"
                if fit:
                    p["in_fit"] = False
            pts.append(p)
            src = r["source"].split(" @ ")
            srcs.append(src)
        commits = sorted({s[1] for s in srcs})
        m["source"] = (f"{PAPER}, model-size figure; {READOFF}: " + srcs[0][0] + " @ " +
                       " and @ ".join(commits) + (" (2023 and 2021 versions of the figure)" if len(commits) > 1 else ""))
        m["fit"] = fit
        m["points"] = pts
        series.append(m)
    write(os.path.join(out, "model_params.json"),
          {"kind": "trends", "schema": 1,
           "notes": "Generated by make_trends_json.py from models_params_trends.csv."},
          series)


def training_compute(data, out):
    rows = list(csv.DictReader(open(os.path.join(data, "models_training_compute.csv"), encoding="utf-8")))
    srcs = {r["source"] for r in rows}
    assert len(srcs) == 1
    source = f"{PAPER}, training-compute figure; {READOFF}: {srcs.pop()}"
    tr, other = [], []
    for r in rows:
        inFit = r["in_transformer_fit"] == "yes"
        p = {"name": r["name"], "date": r["date"], "year": r["year_decimal"],
             "value": float(r["training_pflops"]) * 1e15, "group": r["group"], "in_fit": inFit}
        if r["readme_training_pflops"]:
            p["note"] = f"the repository README states {r['readme_training_pflops']} PFLOPs"
        (tr if inFit else other).append(p)
    series = [
        dict(id="training_compute", name="Training compute of Transformer models", unit="FLOP",
             note="Total training compute (FLOPs, 1 PFLOP = 1e15 FLOP) of state-of-the-art Transformer models, "
                  "2017-2020: the points of the 750x per 2 years line (in_transformer_fit = yes in the data).",
             source=source, paper_factor_per_2_years=750.0, fit=True, points=tr),
        dict(id="training_compute_other", name="Training compute, CV / speech / older NLP",
             unit="FLOP",
             note="The figure's other markers (in_transformer_fit = no): CV, self-supervised CV, speech and "
                  "pre-Transformer NLP models, 2012-2020; the paper fits no line to them.",
             source=source, fit=False, points=other),
    ]
    write(os.path.join(out, "training_compute.json"),
          {"kind": "trends", "schema": 1,
           "notes": "Generated by make_trends_json.py from models_training_compute.csv."},
          series)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    hardware(sys.argv[1], sys.argv[2])
    model_params(sys.argv[1], sys.argv[2])
    training_compute(sys.argv[1], sys.argv[2])
