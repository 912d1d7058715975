#!/usr/bin/env python3
"""Derive the achievable model's GEMM, kernel, all-reduce and FP8-quantize figures of a device preset from
aiconfigurator's published measurements.

Prints, as JSON for presets/hardware/<device>.json ("achievable" object):
  gemm: bf16 and fp8, the fraction of the preset's dense peak that TensorRT-LLM's Linear reached on the table's
      power-of-two cubes m = n = k = 1024 ... 16384: 2 m n k / latency / peak. The fp8 rows time the GEMM together
      with the quantization of its input that TensorRT-LLM's fp8 mode runs with it (compute_scale and scale_matrix at
      m = k = size), so that quantization is subtracted: a scenario charges it itself (activation_scales).
  kernel_s.graphs: the shortest of the table's BF16 GEMMs, the floor of a kernel in a CUDA graph.
  allreduce_sweep: nccl-tests all_reduce_perf (half) on the most GPUs the table has; bytes = 2 x message_size (half
      elements), bus bandwidth = bytes x 2 (n-1)/n / latency (nccl-tests' definition).
  custom_allreduce_sweep: TensorRT-LLM's custom all-reduce (bfloat16) on the most GPUs the table has, the same way.
  fp8_quantize: static = the scale_matrix latency, dynamic = scale_matrix + compute_scale, at k = 8192 and
      m = 1, 2, 4, ... 32768 (elements = m k).

The tables are aiconfigurator's parquet files (ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce,
aic-core/src/aiconfigurator_core/systems/data/<device>/...):
  gemm/trtllm/1.3.0rc20/gemm_perf.parquet, quantize/trtllm/1.3.0rc20/{computescale_perf,scale_matrix_perf}.parquet,
  comm/nccl/2.29.2/nccl_perf.parquet, comm/trtllm/1.3.0rc20/custom_allreduce_perf.parquet.
Export each one to CSV first (any parquet reader; the one used was hyparquet 1.31.5 under node), named
<dir>/<device>.<table>.csv (e.g. gb200.gemm_perf.csv), then:
  tools/achievable_tables.py <dir> <aic-device> <preset.json> [--check]
--check compares the derived figures (and source strings) with those already in the preset and prints each
difference (exit status 1 if any); without it the object is printed in the presets' layout (b200.json's), ready to
paste. Latencies in the tables are in milliseconds. Fractions are rounded to 4 decimals, bus bandwidths to 6 and
quantize times to 4 significant digits, as written in the presets.
Run for b200_sxm against presets/hardware/b200.json it finds every figure and source as written there.
"""
import json
import sys

import pandas as pd

AIC = "ai-dynamo/aiconfigurator @ 095f58a51c4ca8e61b66ec108d86f223f8d559ce"
DATA = "aic-core/src/aiconfigurator_core/systems/data"
TRTLLM = "1.3.0rc20"
NCCL = "2.29.2"
SIZES = [1024, 2048, 4096, 8192, 16384]  # the table's power-of-two cubes
QUANT_K = 8192
QUANT_M = [2**i for i in range(16)]  # 1 ... 32768


def sig(x, digits):
    return float(f"{x:.{digits - 1}e}")


def one(df, what):
    if len(df) != 1:
        sys.exit(f"achievable_tables.py: {what}: expected one row, found {len(df)}")
    return float(df.latency.iloc[0])


def gemm_paths(device):
    return f"{AIC[:AIC.index(' @')]} {DATA}/{device}/gemm/trtllm/{TRTLLM}/gemm_perf.parquet"


def gemm(folder, device, name, peaks):
    g = pd.read_csv(f"{folder}/{device}.gemm_perf.csv")
    cs = pd.read_csv(f"{folder}/{device}.computescale_perf.csv")
    sm = pd.read_csv(f"{folder}/{device}.scale_matrix_perf.csv")
    out = {"bf16": [], "fp8": []}
    timed = (f"TensorRT-LLM {TRTLLM}'s Linear on {name}, timed in a CUDA graph (collector/trtllm/collect_gemm.py, "
             f"collector/helper.py benchmark_with_power)")
    for s in SIZES:
        cube = (g.m == s) & (g.n == s) & (g.k == s)
        flops = 2.0 * s * s * s
        ms = one(g[cube & (g.gemm_dtype == "bfloat16")], f"bf16 m=n=k={s}")
        tf = flops / (ms * 1e-3) / 1e12
        peak = peaks["bf16"] / 1e12
        out["bf16"].append({"size": s, "value": round(tf / peak, 4), "source": (
            f"derived: {tf:.1f} TFLOPS / {peak:g}, BF16 GEMM m=n=k={s} in {ms * 1e3:.2f} us: {timed}; "
            f"{gemm_paths(device)} @ {AIC.split(' @ ')[1]}. The table's power-of-two cubes, as the other devices' "
            f"sweeps")})
        ms8 = one(g[cube & (g.gemm_dtype == "fp8")], f"fp8 m=n=k={s}")
        scale = one(cs[(cs.m == s) & (cs.k == s)], f"compute_scale m=k={s}")
        quant = one(sm[(sm.m == s) & (sm.k == s)], f"scale_matrix m=k={s}")
        alone = ms8 - scale - quant
        tf = flops / (alone * 1e-3) / 1e12
        peak = peaks["fp8"] / 1e12
        out["fp8"].append({"size": s, "value": round(tf / peak, 4), "source": (
            f"derived: {tf:.1f} TFLOPS / {peak:g}, the FP8 GEMM m=n=k={s} alone: the table's {ms8 * 1e3:.2f} us less "
            f"the quantization of its input that TensorRT-LLM's fp8 mode runs with it, {scale * 1e3:.2f} us of scale "
            f"computation (compute_scale) and {quant * 1e3:.2f} us of the quantize kernel (scale_matrix) at m=k={s}; "
            f"a scenario charges that quantization itself (activation_scales). TensorRT-LLM {TRTLLM} on {name}, "
            f"timed in a CUDA graph: {gemm_paths(device)} and {AIC[:AIC.index(' @')]} {DATA}/{device}/quantize/"
            f"trtllm/{TRTLLM}/computescale_perf.parquet and scale_matrix_perf.parquet @ {AIC.split(' @ ')[1]}")})
    bf16 = g[g.gemm_dtype == "bfloat16"]
    low = bf16.loc[bf16.latency.idxmin()]
    kernel = {"graphs": {"value": sig(low.latency * 1e-3, 4), "source": (
        f"derived: {low.latency * 1e3:.3f} us, the shortest of the table's {len(bf16):,} BF16 GEMMs (m={low.m}, "
        f"n={low.n}, k={low.k}): {timed}, the weights rotated past L2; {gemm_paths(device)} @ {AIC.split(' @ ')[1]}. "
        f"A kernel with next to no work still takes this long in a graph: the floor of each kernel")}}
    return out, kernel


def sweep(rows, elem):
    n = int(rows.num_gpus.iloc[0])
    rows = rows.sort_values("message_size")
    return n, [{"bytes": int(m * elem), "bus_bandwidth_bytes_per_s": sig(m * elem * 2 * (n - 1) / n / (ms * 1e-3), 6)}
               for m, ms in zip(rows.message_size, rows.latency)]


def log2(x):
    return x.bit_length() - 1


def largest(table, dtype_column, dtype):
    """The table's rows of `dtype` on the most GPUs it measured."""
    rows = table[table[dtype_column] == dtype]
    return rows[rows.num_gpus == rows.num_gpus.max()]


def sizes_note(element, n, points):
    """The tail both all-reduce sources share: how bytes and the bus bandwidth come from the table's columns."""
    return (f"The table's message_size counts {element} elements, so bytes = 2 x message_size ({len(points)} sizes, "
            f"2^{log2(points[0]['bytes'])} to 2^{log2(points[-1]['bytes'])} B); it gives latency, and the bus bandwidth "
            f"here is derived as bytes x 2 x {n - 1}/{n} / latency, nccl-tests' definition, so each size keeps its "
            f"measured time.")


def allreduce(folder, device, name, link, where):
    nc = pd.read_csv(f"{folder}/{device}.nccl_perf.csv")
    nc = largest(nc[nc.op_name == "all_reduce"], "nccl_dtype", "half")
    n, points = sweep(nc, 2)
    lib = {"devices": n, "source": (
        f"nccl-tests all_reduce_perf (out of place, half) on {n} {name} over {link}{where}, NCCL {NCCL}: "
        f"{AIC[:AIC.index(' @')]} {DATA}/{device}/comm/nccl/{NCCL}/nccl_perf.parquet @ {AIC.split(' @ ')[1]} "
        f"(collector/network/collect_nccl.py runs the nccl-tests binary and keeps its time column). "
        + sizes_note("half", n, points)), "points": points}
    ca = largest(pd.read_csv(f"{folder}/{device}.custom_allreduce_perf.csv"), "allreduce_dtype", "bfloat16")
    n, points = sweep(ca, 2)
    custom = {"devices": n, "source": (
        f"TensorRT-LLM {TRTLLM}'s custom all-reduce (bfloat16) on {n} {name} over {link}{where}, timed in a CUDA "
        f"graph of 5 all-reduces: {AIC[:AIC.index(' @')]} {DATA}/{device}/comm/trtllm/{TRTLLM}/"
        f"custom_allreduce_perf.parquet @ {AIC.split(' @ ')[1]} (collector/network/collect_all_reduce.py). "
        + sizes_note("bfloat16", n, points)), "points": points}
    return lib, custom


def quantize(folder, device, name):
    cs = pd.read_csv(f"{folder}/{device}.computescale_perf.csv")
    sm = pd.read_csv(f"{folder}/{device}.scale_matrix_perf.csv")
    static, dynamic = [], []
    for m in QUANT_M:
        q = one(sm[(sm.m == m) & (sm.k == QUANT_K)], f"scale_matrix m={m} k={QUANT_K}")
        c = one(cs[(cs.m == m) & (cs.k == QUANT_K)], f"compute_scale m={m} k={QUANT_K}")
        static.append({"elements": m * QUANT_K, "s": sig(q * 1e-3, 4)})
        dynamic.append({"elements": m * QUANT_K, "s": sig((q + c) * 1e-3, 4)})
    path = f"{AIC[:AIC.index(' @')]} {DATA}/{device}/quantize/trtllm/{TRTLLM}"
    at = f"at k = {QUANT_K} and m = 1 to {QUANT_M[-1]}"
    return {
        "static": {"source": (
            f"TensorRT-LLM {TRTLLM}'s static FP8 quantization of a bf16 input "
            f"(torch.ops.tensorrt_llm.static_quantize_e4m3_per_tensor, the scale given) on {name}, timed in a CUDA "
            f"graph, {at} (elements = m x k): the table's scale_matrix latency, {path}/scale_matrix_perf.parquet @ "
            f"{AIC.split(' @ ')[1]}; the collector is collector/trtllm/collect_computescale.py"), "points": static},
        "dynamic": {"source": (
            f"TensorRT-LLM {TRTLLM}'s dynamic FP8 quantization of a bf16 input "
            f"(torch.ops.tensorrt_llm.quantize_e4m3_per_tensor: the per-tensor scale found from the input, then the "
            f"quantize kernel) on {name}, timed in a CUDA graph, {at}: the table's scale_matrix latency plus its "
            f"compute_scale latency (the collector records compute_scale as the dynamic op's time less the static "
            f"one's), {path}/scale_matrix_perf.parquet and computescale_perf.parquet @ {AIC.split(' @ ')[1]}; the "
            f"collector is collector/trtllm/collect_computescale.py"), "points": dynamic},
    }


def check(derived, preset):
    """Each derived number against the preset's; returns the differences as lines."""
    have = preset.get("achievable", {})
    diffs = []

    def walk(path, a, b):
        if isinstance(a, dict):
            for key, v in a.items():
                if not isinstance(b, dict) or key not in b:
                    diffs.append(f"{path}.{key}: not in the preset")
                else:
                    walk(f"{path}.{key}", v, b[key])
        elif isinstance(a, list):
            if not isinstance(b, list) or len(a) != len(b):
                diffs.append(f"{path}: {len(a)} points derived, preset has {len(b) if isinstance(b, list) else b}")
            else:
                for i, (x, y) in enumerate(zip(a, b)):
                    walk(f"{path}[{i}]", x, y)
        elif a != b:
            diffs.append(f"{path}: derived {a!r}, preset {b!r}")

    walk("achievable", derived, have)
    return diffs


def preset_text(result):
    """The object as presets/hardware/b200.json writes it: one line per GEMM table, one per sweep point."""
    def points(items, fmt, indent):
        pad = " " * indent
        return ",\n".join(pad + "{" + ", ".join(f'"{k}": {fmt(k, v)}' for k, v in p.items()) + "}" for p in items)

    def num(digits):
        return lambda k, v: f"{v:.{digits}g}" if isinstance(v, float) else str(v)

    out = [f'    "gemm": {json.dumps(result["gemm"])},', f'    "kernel_s": {json.dumps(result["kernel_s"])},']
    for key in ("allreduce_sweep", "custom_allreduce_sweep"):
        w = result[key]
        out += [f'    "{key}": {{', f'      "devices": {w["devices"]},', f'      "source": {json.dumps(w["source"])},',
                '      "points": [', points(w["points"], num(6), 8), "      ]", "    },"]
    out.append('    "fp8_quantize": {')
    for key in ("static", "dynamic"):
        q = result["fp8_quantize"][key]
        out += [f'      "{key}": {{', f'        "source": {json.dumps(q["source"])},', '        "points": [',
                points(q["points"], num(4), 10), "        ]", "      }" + ("," if key == "static" else "")]
    out.append("    }")
    return "{\n" + "\n".join(out) + "\n}"


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if len(args) != 3:
        sys.exit(__doc__)
    folder, device, preset_path = args
    preset = json.load(open(preset_path))
    peaks = {key: v["value"] for key, v in preset["peak_flops"].items()}
    name = pd.read_csv(f"{folder}/{device}.gemm_perf.csv", nrows=1).device.iloc[0]
    short = name.removeprefix("NVIDIA ")
    link = "NVLink 5"
    # GB200/GB300 NVL72: the tables stop at 4 GPUs, the four Blackwell GPUs of one compute tray (aiconfigurator's
    # systems/<device>.yaml: num_gpus_per_node 4), whose NVLinks run through the rack's NVLink Switch trays.
    where = (f" (the 4 GPUs of one compute tray of an NVL72 rack, through its NVLink Switch trays: num_gpus_per_node 4 "
             f"in aiconfigurator's systems/{device}.yaml; the table has no more, so a collective over more of the "
             f"rack's GPUs reads this 4-GPU sweep)") if device.startswith("gb") else ""
    result = {}
    result["gemm"], result["kernel_s"] = gemm(folder, device, name, peaks)
    result["allreduce_sweep"], result["custom_allreduce_sweep"] = allreduce(folder, device, short, link, where)
    result["fp8_quantize"] = quantize(folder, device, name)
    if "--check" in sys.argv:
        diffs = check(result, preset)
        print("\n".join(diffs) if diffs else f"{preset_path}: every derived figure as in the preset")
        sys.exit(1 if diffs else 0)
    print(preset_text(result))


if __name__ == "__main__":
    main()
