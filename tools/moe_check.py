#!/usr/bin/env python3
"""Check MemWall's achievable decode step against the build split of aiconfigurator's measured served runs of MoE
models (DeepSeek-R1/V3, gpt-oss-120b, Qwen3-235B-A22B; aggregated serving; TPOT). For checking only: no constant of
the model is fitted to these runs (issue #37's validation rule), and the held-out half is never read here.

  tools/moe_check.py MEMWALL SILICON_BUILD_CSV [--configs DIR] [--rows N]

MEMWALL is the memwall executable; DIR holds the published config.json files of the models without a preset
(aiconfigurator's model_configs: Qwen--Qwen3-235B-A22B-FP8_config.json, openai--gpt-oss-120b_config.json).
Prints the median |error| of TPOT per model and device and overall, and the share of runs the ideal is not slower
than.
"""
import csv
import json
import os
import statistics
import subprocess
import sys

DEVICES = {"h100_sxm": "h100-sxm", "h200_sxm": "h200-sxm", "b200_sxm": "b200", "gb200": "gb200-nvl72"}
# aiconfigurator quant mode -> (weights, activations)
FORMATS = {"fp8": ("fp8", "fp8"), "fp8_block": ("fp8/g16384/fp32", "fp8"), "nvfp4": ("fp4/g16/fp8", "fp8"),
           "bfloat16": ("bf16", "bf16"), "w4a16_mxfp4": ("fp4/g32/fp8", "bf16")}


def model_args(path, configs):
    if "DeepSeek-R1" in path or "DeepSeek-V3" in path:
        return ["--model", "deepseek-v3"]
    if "gpt-oss-120b" in path:
        return ["--model-config", f"{configs}/openai--gpt-oss-120b_config.json"]
    if "Qwen3-235B" in path:
        return ["--model-config", f"{configs}/Qwen--Qwen3-235B-A22B-FP8_config.json"]
    return None


def split_args(r):
    tp, adp = int(float(r["tp_size"])), int(float(r["attention_dp_size"] or 1))
    return ["--tp", str(tp), "--attention-dp", str(adp), "--moe-tp", str(int(float(r["moe_tp_size"]))),
            "--moe-ep", str(int(float(r["moe_ep_size"])))]


def step_s(memwall, args):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run([memwall, "analyze", *args, "--json"], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"
    return json.loads(out.stdout)["totals"]["time_s"], ""


def main():
    memwall, rows_csv = sys.argv[1], sys.argv[2]
    configs = sys.argv[sys.argv.index("--configs") + 1] if "--configs" in sys.argv else "/tmp/moe/cfg"
    errors, ideal_ok, refused, groups = [], 0, 0, {}
    for r in csv.DictReader(open(rows_csv)):
        m = model_args(r["model_path"], configs)
        if r["mode"] != "agg" or m is None or r["system"] not in DEVICES or not r["silicon_tpot_ms"]:
            continue
        w, a = FORMATS.get(r["gemm_quant_mode"], ("fp8", "fp8"))
        ew, _ = FORMATS.get(r["moe_quant_mode"], (w, a))
        if "gpt-oss" in r["model_path"]:
            ew = "fp4/g32/fp8"  # gpt-oss ships its experts in MXFP4 whatever the run's other formats
            w, a = "bf16", "bf16"
            # --gpt-oss-w4a8: on Blackwell, MXFP8 activations for the MXFP4 experts (TensorRT-LLM's W4A8_MXFP4_MXFP8
            # MoE backend there); MemWall has one activation format, so the other matmuls then run FP8 too.
            if "--gpt-oss-w4a8" in sys.argv and r["system"] in ("b200_sxm", "gb200"):
                a = "fp8"
        ctx = int(r["isl"]) + int(r["osl"]) // 2
        base = [*m, "--hardware", DEVICES[r["system"]], "--phase", "decode", "--batch",
                str(int(float(r["batch_size"]))), "--context", str(ctx), "--weights", w, "--expert-weights", ew,
                "--activations", a, "--kv", "fp8", *split_args(r)]
        ach, why = step_s(memwall, [*base, "--efficiency", "achievable"])
        ideal, _ = step_s(memwall, base)
        if ach is None or ideal is None:
            refused += 1
            if "-v" in sys.argv:
                print("refused:", r["id"], why)
            continue
        measured = float(r["silicon_tpot_ms"]) * 1e-3
        err = (ach - measured) / measured
        errors.append(err)
        ideal_ok += ideal <= measured * 1.0001
        key = (r["model_path"].split("/")[-1], r["system"], r["backend"])
        groups.setdefault(key, []).append(err)
    for key, errs in sorted(groups.items()):
        print(f"{key[0]:28s} {key[1]:9s} {key[2]:7s} n={len(errs):3d} median |err| "
              f"{statistics.median(abs(e) for e in errs):6.1%}  median signed {statistics.median(errs):+6.1%}")
    print(f"runs {len(errors)}, refused {refused}; median |err| {statistics.median(abs(e) for e in errors):.1%}; "
          f"median signed {statistics.median(errors):+.1%}; within 25 % "
          f"{sum(abs(e) <= 0.25 for e in errors) / len(errors):.0%}; ideal not slower {ideal_ok}/{len(errors)}")
    for family in ("DeepSeek", "Qwen3", "gpt-oss"):
        errs = [e for key, v in groups.items() if key[0].startswith(family) for e in v]
        if errs:
            print(f"  {family:9s} runs {len(errs):3d}: median |err| {statistics.median(abs(e) for e in errs):.1%}, "
                  f"median signed {statistics.median(errs):+.1%}, within 25 % "
                  f"{sum(abs(e) <= 0.25 for e in errs) / len(errs):.0%}")


if __name__ == "__main__":
    main()
