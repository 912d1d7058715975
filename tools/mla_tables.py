#!/usr/bin/env python3
"""Derive a device preset's MLA decode table ("achievable" object, "mla_decode") from aiconfigurator's measurements.

TensorRT-LLM's whole multi-head latent attention module of DeepSeek-V3 in one decode step (the latent projections and
their norms, rotary, the cache write, the absorbed query and value products, the attention kernel and o_proj), timed
in a CUDA graph by aiconfigurator's collector (collector/trtllm/collect_mla_module.py: one DeepseekV3 attention layer
built from TensorRT-LLM's own modelling code, `num_heads` of the 128 heads as a tensor-parallel rank keeps them, the
latent projections whole), is published per device as mla_generation_module_perf.parquet (ai-dynamo/aiconfigurator @
095f58a51c4ca8e61b66ec108d86f223f8d559ce, aic-core/src/aiconfigurator_core/systems/data/<device>/mla/trtllm/
1.3.0rc20/). Export it to CSV first (any parquet reader; hyparquet 1.31.5 under node was used), named
<dir>/<device>.mla_generation_module_perf.csv, then:

  PYTHONPATH=build-test/python tools/mla_tables.py <dir> <aic-device> <preset.json> [--write]

For each weight format (gemm_type), KV-cache format and heads per rank, and each measured batch and context, the table
holds the fraction of the module's ideal roofline that the measured latency reached: the sum of the ideal times of the
operators MemWall emits for that layer (every "attn." operator but the input norm, the residual and a post-norm), as
`memwall.analyze` gives them for deepseek-v3 on the device at that batch and context (efficiency ideal, tp = 128 /
heads), over the measured latency. The analysis times each of those operators at its own ideal roofline over the
fraction (core/analysis/operatortime.h, timeModuleOperator), so at every measured point the module takes what was
measured. A fraction is at most 1 (the measurement is never faster than the roofline; none was). Where a batch was not
measured at the longest contexts (memory), its row stops at the last one measured; where it was not measured at the
shortest (one row of the B200's), its first measured context's fraction stands in for it. Without --write the block is
printed; with it, it replaces or adds "mla_decode" at the end of the preset's "achievable" object.
"""
import json
import sys

import pandas as pd

import memwall

AIC = "ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce"
DATA = "aic-core/src/aiconfigurator_core/systems/data"
# gemm_type -> MemWall's weights and activations for that module
GEMM = {"bfloat16": {"weights": "bf16", "activations": "bf16"},
        "fp8_block": {"weights": "fp8", "activations": "fp8", "activation_scales": "dynamic"},
        "nvfp4": {"weights": "nvfp4", "activations": "fp4"}}
KV = {"bfloat16": "bf16", "fp8": "fp8"}
CAPPED = []  # points measured faster than the operators' summed rooflines (see the docstring)
OUTSIDE = {"attn.norm", "attn.residual", "attn.post_norm"}  # not part of the attention module


def module_roofline(preset_id, gemm, kv, heads, batch, context):
    """Seconds: the ideal time of one layer's MLA module as MemWall counts it."""
    r = memwall.analyze(model="deepseek-v3", hardware=preset_id, phase="decode", batch=int(batch),
                        context=int(context), tp=128 // int(heads), kv=KV[kv], efficiency="ideal", **GEMM[gemm])
    ops = [o for o in r["operators"] if o["name"].startswith("attn.") and o["name"] not in OUTSIDE]
    return sum(o["time_s"] for o in ops) / ops[0]["count"]


def table(df, preset_id, gemm, kv, heads):
    x = df[(df.gemm_type == gemm) & (df.kv_cache_dtype == kv) & (df.num_heads == heads)]
    g = x.groupby(["batch_size", "step"]).latency.min().unstack()  # the fastest of repeated points, ms
    contexts = [int(c) for c in g.columns]
    rows = []
    for batch, measured in g.iterrows():
        fractions = []
        first = next(i for i, ms in enumerate(measured.values) if not pd.isna(ms))
        for i, (context, ms) in enumerate(zip(contexts, measured.values)):
            if i < first:  # a shortest context not measured: the row's first measured one stands in for it
                context, ms = contexts[first], measured.values[first]
            elif pd.isna(ms):
                break
            f = module_roofline(preset_id, gemm, kv, heads, batch, context) / (ms * 1e-3)
            if f > 1:
                CAPPED.append((gemm, kv, int(heads), int(batch), context, round(f, 4)))
            fractions.append(round(min(f, 1.0), 4))
        rows.append({"batch": int(batch), "fraction": fractions})
    return {"heads": int(heads), "context": contexts, "rows": rows}


def block(folder, device, preset_id):
    df = pd.read_csv(f"{folder}/{device}.mla_generation_module_perf.csv")
    df = df[(df.model == "deepseek-ai/DeepSeek-V3") & (df.isl == 1) & (df.tp_size == 1)]
    version, name = df.version.iloc[0], df.device.iloc[0]
    out = {"source": (f"derived: the ideal roofline of MemWall's MLA decode operators / the measured latency of "
                      f"TensorRT-LLM {version}'s DeepSeek-V3 attention module in a decode step on {name} (CUDA graph), "
                      f"{AIC}, {DATA}/{device}/mla/trtllm/{version}/mla_generation_module_perf.parquet "
                      f"(collector/trtllm/collect_mla_module.py); as in tools/mla_tables.py"),
           "formats": {}}
    for gemm in sorted(df.gemm_type.unique()):
        for kv in sorted(df.kv_cache_dtype.unique()):
            heads = sorted(df[(df.gemm_type == gemm) & (df.kv_cache_dtype == kv)].num_heads.unique(), reverse=True)
            if heads:
                out["formats"][f"{gemm}/{kv}"] = [table(df, preset_id, gemm, kv, h) for h in heads]
    return out


def render(b):
    """The block as the presets write tables: one line per batch."""
    lines = ['    "mla_decode": {', f'      "source": {json.dumps(b["source"])},', '      "formats": {']
    formats = list(b["formats"].items())
    for i, (key, tables) in enumerate(formats):
        lines.append(f'        {json.dumps(key)}: [')
        for j, t in enumerate(tables):
            lines.append(f'          {{"heads": {t["heads"]}, "context": {json.dumps(t["context"])}, "rows": [')
            for k, r in enumerate(t["rows"]):
                comma = "," if k + 1 < len(t["rows"]) else ""
                lines.append(f'            {{"batch": {r["batch"]}, "fraction": {json.dumps(r["fraction"])}}}{comma}')
            lines.append("          ]}" + ("," if j + 1 < len(tables) else ""))
        lines.append("        ]" + ("," if i + 1 < len(formats) else ""))
    lines += ["      }", "    }"]
    return "\n".join(lines)


def closing_brace(text, start):
    """Index of the brace closing the object that opens at text[start] (strings skipped)."""
    depth, i, in_string = 0, start, False
    while i < len(text):
        ch = text[i]
        if in_string:
            i += 2 if ch == "\\" else 1
            in_string = in_string and ch != '"'
            continue
        if ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced braces")


def write(preset_path, text):
    src = open(preset_path).read()
    old = src.find('"mla_decode": {')
    if old >= 0:  # drop the old block with its leading comma and indentation
        end = closing_brace(src, src.index("{", old))
        cut = src.rindex(",", 0, old)
        src = src[:cut] + src[end + 1:]
    start = src.index("{", src.index('"achievable": {'))
    end = closing_brace(src, start)
    body = src[:end].rstrip()
    src = body + ",\n" + text + "\n  " + src[end:]
    json.loads(src)  # still a valid preset
    with open(preset_path + ".tmp", "w") as f:
        f.write(src)
    import os
    os.replace(preset_path + ".tmp", preset_path)


def main():
    folder, device, preset_path = sys.argv[1:4]
    preset_id = json.load(open(preset_path))["id"]
    text = render(block(folder, device, preset_id))
    for c in CAPPED:
        print("capped at 1: %s/%s heads %d batch %d context %d: %.4f" % c, file=sys.stderr)
    if "--write" in sys.argv[4:]:
        write(preset_path, text)
    else:
        print(text)


if __name__ == "__main__":
    main()
