#!/usr/bin/env python3
"""Derive the achievable model's MoE tables of a device preset from aiconfigurator's published measurements.

Prints, as JSON for presets/hardware/<device>.json ("achievable" object):
  moe_grouped_gemm: per expert format, the fraction of the fused MoE block's roofline that TensorRT-LLM's fused MoE
      kernel (on Blackwell, vLLM's for w4a16_mxfp4: VLLM_KERNELS below) reached (measured latency over roofline), by tokens per expert on the busiest device and, where several
      batches give the same tokens per expert, by the experts that device runs (experts_touched); the analysis
      times the routed experts' operators at roofline / fraction (core/analysis/operatortime.h).
  alltoall: DeepEP low-latency dispatch and combine on one node, measured time by bytes each rank sends.

The tables are aiconfigurator's parquet files (ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce,
aic-core/src/aiconfigurator_core/systems/data/<device>/...). Export each one to CSV first (any parquet reader; the
one used was hyparquet 1.31.5 under node), named <dir>/<device>.<version>.moe.csv and
<dir>/<device>.wideep_deepep_ll_perf.csv, then: tools/moe_tables.py <dir> <aic-device> <preset.json>

The roofline counts what core/analysis/ffn.cpp emits for the routed experts of one layer (kept in step with it):
  pairs, touched = expertLoad(N, E, k, E/ep, ep)             (token-expert pairs and experts hit on the busiest device)
  up, gate: 2 pairs h i FLOPs each, touched h i bpw weight bytes, pairs (h + i) act bytes
  act:      3 pairs i act bytes;  down: as up with h and i swapped
  permute and unpermute: 2 pairs h act bytes each (each routed copy read and written)
each operator max(FLOPs / peak, bytes / HBM bandwidth), act = 2 (bf16 in and out of the block), peak the dense peak
of the format's compute type. No fraction is above 1: the measured time is never faster than the roofline.
"""
import json
import math
import sys

import pandas as pd

AIC = "ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce"
DATA = "aic-core/src/aiconfigurator_core/systems/data"
# table format -> (bytes per weight with its scales, compute type of the preset's peak_flops)
FORMATS = {
    "bfloat16": (2.0, "bf16"),
    "fp8": (1.0, "fp8"),
    "fp8_block": (1.0 + 4.0 / (128 * 128), "fp8"),  # one fp32 scale per 128 x 128 block (DeepSeek-V3)
    "nvfp4": (0.5 + 1.0 / 16, "fp4"),  # one E4M3 scale per 16 weights
    "w4a16_mxfp4": (0.5 + 1.0 / 32, "bf16"),  # one E8M0 scale per 32 weights, bf16 activations
    "w4a8_mxfp4_mxfp8": (0.5 + 1.0 / 32, "fp8"),
}
# reference shapes, first present wins: DeepSeek-V3, Qwen3-235B-A22B, gpt-oss-120b (hidden, inter, topk, experts)
SHAPES = [(7168, 2048, 8, 256), (4096, 1536, 8, 128), (2880, 2880, 4, 128), (7168, 3072, 6, 384),
          (4096, 2048, 6, 256)]


def expert_load(tokens, experts, active, local, ep):
    hit = 1.0 - (1.0 - active / experts) ** tokens
    pairs = tokens * active * local / experts
    touched = local * hit
    if ep > 1:
        busiest = min(local, math.ceil(experts * hit / ep - 1e-9))
        touched = max(touched, busiest)
        pairs = max(pairs, touched)
    return pairs, touched


def roofline(n, h, i, k, e, ep, tp, bpw, peak, bw, act=2.0):
    pairs, touched = expert_load(n, e, k, e / ep, ep)
    il = i / tp
    ops = [  # (flops, bytes)
        (2 * pairs * h * il, touched * h * il * bpw + pairs * (h + il) * act),  # up
        (2 * pairs * h * il, touched * h * il * bpw + pairs * (h + il) * act),  # gate
        (0, 3 * pairs * il * act),  # act
        (2 * pairs * h * il, touched * h * il * bpw + pairs * (h + il) * act),  # down
        (0, 2 * pairs * h * act),  # permute
        (0, 2 * pairs * h * act),  # unpermute
    ]
    return sum(max(f / peak, b / bw) for f, b in ops), pairs / touched, touched


# The kernel a format's table measures: TensorRT-LLM's fused MoE, except where no engine runs that kernel by default
# on the device. On Blackwell (sm100) TensorRT-LLM runs MXFP4 experts with MXFP8 activations (its gpt-oss deployment
# guide, "MoE Backend Support Matrix"), and vLLM, which keeps BF16 activations, picks FlashInfer's TRT-LLM-gen
# MXFP4 x BF16 kernel first (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py: SM100_FI_MXFP4_BF16 heads its
# list): so the w4a16_mxfp4 table there is that kernel as aiconfigurator measured it under vLLM. Its CSV is
# <dir>/<device>.vllm-<version>.moe.csv.
SM100 = {"b200_sxm", "b300_sxm", "gb200", "gb300"}
VLLM_KERNELS = {"w4a16_mxfp4": ("0.24.0", "vllm_gptossmxfp4moe_flashinfer_trtllm_mxfp4_bf16")}
EPS = [1, 2, 4, 8, 16, 32, 64]  # one curve per expert split: the fixed costs weigh more the less work a rank has
TOKENS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384]  # batches kept of the table's 27


def curve(rows, fmt, version, device, shape, ep, bpw, peak, bw, engine="trtllm"):
    """The fraction of the roofline by tokens per expert (and experts touched) at one expert split (moe_ep, moe_tp 1)."""
    h, i, k, e = shape
    kernels = ", ".join(sorted(rows.kernel_source.unique()))
    # Where the table times several kernels at one size, the fastest: the one the engine would pick.
    fastest = rows.groupby("num_tokens").latency.min().sort_index()
    points = []
    for n, ms in fastest.items():
        if n not in TOKENS:
            continue
        r, x, touched = roofline(n, h, i, k, e, ep, 1, bpw, peak, bw)
        x, touched = round(x, 4), round(touched, 4)
        # With expert parallelism the smallest batches all give one token per expert (each routed copy its own expert
        # on the busiest rank): they differ in how many experts that rank runs, over which the kernel's fixed costs
        # are shared, so each is kept with its experts_touched. A point that would step back is dropped.
        if points and (x, touched) <= (points[-1]["tokens_per_expert"], points[-1]["experts_touched"]):
            print(f"{device} {fmt} ep {ep}: {n} tokens dropped (x {x}, touched {touched})", file=sys.stderr)
            continue
        points.append({"tokens_per_expert": x, "experts_touched": touched,
                       "fraction": round(min(1.0, r / (ms * 1e-3)), 4), "measured_s": round(ms * 1e-3, 9),
                       "tokens": int(n)})
    name = {"trtllm": "TensorRT-LLM", "vllm": "vLLM"}[engine]
    src = (f"derived: roofline / measured latency of {name} {version}'s fused MoE ({fmt}, hidden {h}, inter {i}, "
           f"top-{k} of {e} experts, moe_ep {ep}, moe_tp 1, balanced routing; the fastest of {kernels} at each size) "
           f"on {rows.device.iloc[0]}, {AIC}, {DATA}/{device}/moe/{engine}/{version}/moe_perf.parquet "
           f"(collector/{engine}/collect_moe.py); roofline and tokens per expert as in tools/moe_tables.py")
    return {"source": src, "hidden": h, "inter": i, "topk": k, "experts": e, "moe_ep": ep, "points": points}


def format_curves(rows, fmt, version, device, peaks, bw, engine):
    """One format's curves (one per expert split) at the first reference shape the table has, or None."""
    bpw, ctype = FORMATS[fmt]
    rows = rows[rows.moe_dtype == fmt]
    shape = next((s for s in SHAPES if ((rows.hidden_size == s[0]) & (rows.inter_size == s[1]) &
                                        (rows.topk == s[2]) & (rows.num_experts == s[3])).any()), None)
    if shape is None:
        return None
    h, i, k, e = shape
    rows = rows[(rows.hidden_size == h) & (rows.inter_size == i) & (rows.topk == k) & (rows.num_experts == e)]
    return [curve(rows[rows.moe_ep_size == ep], fmt, version, device, (h, i, k, e), ep, bpw, peaks[ctype], bw,
                  engine) for ep in EPS if (rows.moe_ep_size == ep).any()]


def moe_curves(folder, device, preset):
    peaks = {key: v["value"] for key, v in preset["peak_flops"].items()}
    bw = next(m["bandwidth_bytes_per_s"]["value"] for m in preset["memory"] if m["kind"] == "dram")
    out = {}
    for fmt, (version, kernel) in VLLM_KERNELS.items() if device in SM100 else []:
        df = pd.read_csv(f"{folder}/{device}.vllm-{version}.moe.csv")
        df = df[(df.distribution == "balanced") & (df.moe_tp_size == 1) & df.kernel_source.str.startswith(kernel)]
        out[fmt] = format_curves(df, fmt, version, device, peaks, bw, "vllm")
    for version in ["1.3.0rc23", "1.3.0rc20"]:  # the newest version that has each format
        try:
            df = pd.read_csv(f"{folder}/{device}.{version}.moe.csv")
        except FileNotFoundError:
            continue
        df = df[(df.distribution == "balanced") & (df.moe_tp_size == 1) & (df.kernel_source != "moe_torch_flow_nongated")]
        for fmt, (_, ctype) in FORMATS.items():
            if fmt in out or ctype not in peaks:
                continue
            curves = format_curves(df, fmt, version, device, peaks, bw, "trtllm")
            if curves:
                out[fmt] = curves
    return out


def alltoall(folder, device):
    try:
        df = pd.read_csv(f"{folder}/{device}.wideep_deepep_ll_perf.csv")
    except FileNotFoundError:
        return None
    df = df[(df.node_num == 1) & (df.hidden_size == 7168) & (df.num_topk == 8) & (df.num_experts == 256)]
    df = df.sort_values("num_token")
    h, k = 7168, 8
    fp8 = h + h // 128 * 4  # FP8 values and one fp32 scale per 128 (DeepEP low-latency dispatch)
    out = {"source": (f"DeepEP low-latency dispatch (FP8, {fp8} B per token copy) and combine (bf16) under SGLang "
                      f"{df.version.iloc[0]} on {df.device.iloc[0]}, one node, hidden {h}, top-{k} of 256 experts: "
                      f"{AIC}, {DATA}/{device}/comm/sglang/{df.version.iloc[0]}/wideep_deepep_ll_perf.parquet "
                      f"(collector/wideep/sglang/collect_deepep_ll.py); bytes = tokens per rank x top-k x bytes "
                      f"per token copy, as the table's own bandwidth column counts them")}
    out["dispatch"] = [{"bytes": int(n * k * fp8), "s": round(t * 1e-6, 9)} for n, t in
                       zip(df.num_token, df.dispatch_avg_t_us)]
    out["combine"] = [{"bytes": int(n * k * h * 2), "s": round(t * 1e-6, 9)} for n, t in
                      zip(df.num_token, df.combine_avg_t_us)]
    return out


def main():
    folder, device, preset_path = sys.argv[1:4]
    preset = json.load(open(preset_path))
    result = {"moe_grouped_gemm": moe_curves(folder, device, preset)}
    a2a = alltoall(folder, device)
    if a2a:
        result["alltoall"] = a2a
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
