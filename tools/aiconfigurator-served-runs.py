# Turns the two halves of aiconfigurator's measured served runs (tools/validation-split.py) into MemWall validation
# sets (issue #37): the build half into presets/validation/moe-served.json, the held-out half into
# tests/data/heldout/aiconfigurator-moe-served.json. Each aggregated-serving row becomes three runs, its TTFT, its
# TPOT and its served TPOT (tpot + ttft / output tokens), with the row's settings and source. Every rule below is written in docs/validation.md; rows the rules leave
# out are counted, by reason, on standard error.
#   python3 tools/aiconfigurator-served-runs.py silicon-build.csv presets/validation/moe-served.json
import collections, csv, json, sys

REPO = "ai-dynamo/aiconfigurator"
COMMIT = "095f58a51c4ca8e61b66ec108d86f223f8d559ce"
CSV_PATH = "aic-core/src/aiconfigurator_core/systems/silicon_sample.csv"

# model_path -> (model preset, dense). DeepSeek-R1 and V3.1 have DeepSeek-V3's shapes; Kimi-K2.5's text model has
# Kimi K2's (its config.json's text_config, in the same repository's model_configs).
MODELS = {
    "deepseek-ai/DeepSeek-R1": ("deepseek-v3", False),
    "deepseek-ai/DeepSeek-V3": ("deepseek-v3", False),
    "nvidia/DeepSeek-R1-NVFP4": ("deepseek-v3", False),
    "nvidia/DeepSeek-V3.1-NVFP4": ("deepseek-v3", False),
    "moonshotai/Kimi-K2.5": ("kimi-k2", False),
    "openai/gpt-oss-120b": ("gpt-oss-120b", False),
    "Qwen/Qwen3-235B-A22B-FP8": ("qwen3-235b-a22b-fp8", False),
    "Qwen/Qwen3-32B": ("qwen3-32b", True),
    "nvidia/Qwen3-32B-NVFP4": ("qwen3-32b", True),
    "Qwen/Qwen3.5-397B-A17B": ("qwen3-5-397b-a17b", False),
    "MiniMaxAI/MiniMax-M2.5": ("minimax-m2.5", False),
}
DEVICES = {"h100_sxm": "h100-sxm", "h200_sxm": "h200-sxm", "b200_sxm": "b200", "b300_sxm": "b300",
           "gb200": "gb200-nvl72", "gb300": "gb300"}
FRAMEWORKS = {"trtllm": "tensorrt-llm", "vllm": "vllm", "sglang": "sglang"}
# The engines' token budget per step as aiconfigurator's generator launches them for aggregated serving
# (src/aiconfigurator/generator/rule_plugin/benchmark/{trtllm,vllm,sglang}.rule @ COMMIT), per attention rank (each
# attention-DP rank schedules on its own). max_batch_size is the row's concurrency over the attention-DP ranks: the
# deployment's own value is not in the row, and aiconfigurator predicts each row with batch_size = its concurrency.
RULES = "src/aiconfigurator/generator/rule_plugin/benchmark/" + "{}.rule"
BIG_MEMORY = {"b200", "gb200-nvl72", "gb300"}  # 160 GB and more: SGLang's larger chunked_prefill_size default
def concurrency(row, adp):
    """The client's concurrency: the row's silicon_concurrency. With attention DP, batch_size is per attention rank
    (batch_size x attention_dp_size = silicon_concurrency in every such row), without it batch_size is the
    concurrency."""
    for part in row["silicon_data_source"].split(";"):
        key, _, value = part.strip().partition("=")
        if key == "silicon_concurrency":
            return int(value)
    return int(row["batch_size"]) * adp


def budget(row, device, adp):
    isl, backend = int(row["isl"]), row["backend"]
    mbs = -(-concurrency(row, adp) // adp)
    if backend == "trtllm":
        # agg max_num_tokens = max_batch_size + isl + 1500, rounded up to tokens_per_block (32)
        return -(-(mbs + isl + 1500) // 32) * 32, "max_num_tokens = max_batch_size + isl + 1500 (to 32)"
    if backend == "vllm":
        return mbs + isl + 1500, "max_num_batched_tokens = max_batch_size + isl + 1500"
    # SGLang: max_prefill_tokens = isl + 1500, under the default chunked_prefill_size (docs/model.md, "Engine
    # admission"), which DP attention divides by the attention-DP size (sgl-project/sglang, server_args.py).
    chunk = (16384 if device in BIG_MEMORY else 8192) // adp
    return min(isl + 1500, chunk), "min(max_prefill_tokens = isl + 1500, chunked_prefill_size / attention_dp)"

# How the client sent the requests: aiperf at a fixed concurrency, ignore_eos with min_tokens = max_tokens = osl and
# no spread in the lengths, request count 20 x concurrency after a warm-up of concurrency (or twice it) requests
# (src/aiconfigurator/generator/sflow.py and .../backend_templates/benchmark/bench_run.sh.j2 @ COMMIT); aiperf waits
# for the warm-up to return before the profiling phase (ai-dynamo/aiperf, aiperf/timing/credit_issuing_strategy.py).
ARRIVALS = "rounds"

BLOCK_FP8 = "fp8/g16384/fp32"  # E4M3 with one FP32 scale per 128 x 128 block
WEIGHTS = {"": "bf16", "fp8": "fp8", "fp8_block": BLOCK_FP8, "nvfp4": "nvfp4", "int4_wo": "int4/g32/bf16"}
# Checkpoints whose FP8 weights are stored in 128 x 128 blocks (their config.json's quantization_config,
# weight_block_size [128, 128], cited in the model presets): the engine runs what it loads, so a row of theirs
# labelled fp8 is block-scaled too (the label is aiconfigurator's kernel choice, not a second checkpoint).
BLOCK_CHECKPOINTS = {"deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-235B-A22B-FP8",
                     "MiniMaxAI/MiniMax-M2.5"}

def formats(row, model):
    """weights, expert weights (or None), activations, kv, activation scales, note"""
    gemm, moe = row["gemm_quant_mode"], row["moe_quant_mode"]
    if gemm not in WEIGHTS or moe not in WEIGHTS:
        return None
    if model == "gpt-oss-120b" and gemm == "nvfp4":
        # The release: MXFP4 experts, the rest BF16 (its config.json's quantization_config).
        return "bf16", "mxfp4", "bf16", "bf16", "fused", "the row's nvfp4 label is the release's MXFP4 experts"
    w, e = WEIGHTS[gemm], WEIGHTS[moe]
    if row["model_path"] in BLOCK_CHECKPOINTS:
        w, e = (BLOCK_FP8 if x == "fp8" else x for x in (w, e))
    acts = {"fp8": "fp8", "fp8_block": "fp8", "nvfp4": "fp4"}.get(gemm, "bf16")
    # TensorRT-LLM takes the KV format of NVIDIA's NVFP4 checkpoints (kv_cache_quant_algo FP8); vLLM and SGLang keep
    # the model's type by default (kv_cache_dtype auto).
    kv = "fp8" if row["backend"] == "trtllm" and gemm == "nvfp4" else "bf16"
    scales = "dynamic" if acts == "fp8" else "fused"
    return w, (None if e == w else e), acts, kv, scales, ""

# TensorRT-LLM runs MXFP4 experts with MXFP8 activations on Blackwell (its gpt-oss deployment guide's "MoE Backend
# Support Matrix": B200/GB200/B300/GB300 MXFP8 x MXFP4 with the default TRTLLM backend, H200 BF16 x MXFP4;
# NVIDIA/TensorRT-LLM examples/models/core/gpt_oss/README.md). vLLM's MXFP4 oracle picks BF16 activations unless an
# environment variable asks for MXFP8 (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py), which aiconfigurator's
# generator does not set, and SGLang is not in these rows for gpt-oss.
BLACKWELL = {"b200", "b300", "gb200-nvl72", "gb300"}

def expert_activations(row, device, experts):
    if experts == "mxfp4" and row["backend"] == "trtllm" and device in BLACKWELL:
        return "mxfp8", "TensorRT-LLM runs MXFP4 experts with MXFP8 activations on Blackwell (its gpt-oss deployment guide)"
    return None, ""

def degree(text):
    return int(text) if text not in ("", "0") else 1

def run_of(row, skipped):
    if row["mode"] != "agg":
        skipped["disaggregated (one parallelism for both pools is all MemWall takes)"] += 1
        return None
    if "Llama-3.1" in row["model_path"]:
        skipped["Llama 3.1: the dense held-out set's family (tests/data/heldout/aiconfigurator-silicon.json)"] += 1
        return None
    if row["model_path"] not in MODELS:
        skipped["model without a preset: " + row["model_path"]] += 1
        return None
    if row["system"] not in DEVICES:
        skipped["device without a preset: " + row["system"]] += 1
        return None
    model, dense = MODELS[row["model_path"]]
    device = DEVICES[row["system"]]
    f = formats(row, model)
    if not f:
        skipped["formats not stated"] += 1
        return None
    tp, pp, adp = degree(row["tp_size"]), degree(row["pp_size"]), degree(row["attention_dp_size"])
    mtp, mep = degree(row["moe_tp_size"]), degree(row["moe_ep_size"])
    if not dense and mtp * mep != tp * adp:
        skipped["moe_tp x moe_ep differs from tp x attention_dp"] += 1
        return None
    run = {"model": model, "device": device, "tp": tp, "pp": pp}
    if not dense:
        run.update({"attention_dp": adp, "moe_tp": mtp, "moe_ep": mep})
    run.update({"batch": concurrency(row, adp), "input_tokens": int(row["isl"]), "output_tokens": int(row["osl"])})
    w, e, acts, kv, scales, note = f
    run["weights"] = w
    if e:
        run["expert_weights"] = e
    run.update({"activations": acts, "kv": kv, "framework": FRAMEWORKS[row["backend"]],
                "framework_version": row["backend_version"], "execution": "graphs", "allreduce": "custom",
                "activation_scales": scales})
    xa, xa_note = expert_activations(row, device, e)
    if xa:
        run["expert_activations"] = xa
        note = (note + "; " if note else "") + xa_note
    tokens, rule = budget(row, device, adp)
    run.update({"max_batched_tokens": tokens, "arrivals": ARRIVALS})
    base = (f"{REPO} {CSV_PATH} @ {COMMIT}, row id {row['id']}")
    notes = (f"{row['model_path']} on {row['system']}, {row['backend']} {row['backend_version']}, aggregated serving "
             f"at a concurrency of batch; precision {row['precision'] or 'unstated (bf16)'}, gemm "
             f"{row['gemm_quant_mode'] or 'bf16'}, moe {row['moe_quant_mode'] or 'bf16'}" + (f"; {note}" if note else "")
             + f"; admission: {rule} ({REPO} {RULES.format(row['backend'])} @ {COMMIT}), arrivals {ARRIVALS} (aiperf "
             f"at the concurrency, 20 rounds after a warm-up: {REPO} src/aiconfigurator/generator/sflow.py)")
    out = []
    for metric, column in (("ttft_s", "silicon_ttft_ms"), ("tpot_s", "silicon_tpot_ms")):
        r = {"id": "aic-" + row["id"] + "-" + metric.split("_")[0]}
        r.update(run)
        r.update({"metric": metric, "value": float(row[column]) / 1000, "source": base,
                  "quote": f"{column} {row[column]}", "notes": notes})
        out.append(r)
    # The served TPOT a client sees over the request, from the same row: tpot + ttft / output tokens (the steady
    # state's step also carries the prefills of the requests that join: docs/validation.md).
    tpot, ttft, osl = float(row["silicon_tpot_ms"]), float(row["silicon_ttft_ms"]), int(row["osl"])
    r = {"id": "aic-" + row["id"] + "-served"}
    r.update(run)
    r.update({"metric": "served_tpot_s", "value": (tpot + ttft / osl) / 1000, "source": base,
              "quote": f"silicon_tpot_ms {row['silicon_tpot_ms']} + silicon_ttft_ms {row['silicon_ttft_ms']} / osl {osl}",
              "notes": notes})
    out.append(r)
    return out

def main(src, dst):
    skipped = collections.Counter()
    runs, seen = [], set()
    for row in csv.DictReader(open(src, newline="")):
        more = run_of(row, skipped)
        for r in more or []:
            if r["id"] in seen:
                skipped["row id given twice"] += 1
                continue
            seen.add(r["id"])
            runs.append(r)
    doc = {"kind": "validation", "schema": 1,
           "notes": f"Generated by tools/aiconfigurator-served-runs.py from {src.split('/')[-1]} (the split of "
                    f"tools/validation-split.py) of {REPO} {CSV_PATH} @ {COMMIT}; three runs per row, its TTFT, TPOT and served TPOT (tpot + ttft / output tokens).",
           "runs": runs}
    # One run a line: the file stays readable and a changed run is a one-line diff.
    head = json.dumps({k: v for k, v in doc.items() if k != "runs"}, indent=2)[:-2]
    lines = ",\n".join("    " + json.dumps(r) for r in runs)
    with open(dst, "w") as f:
        f.write(head + ',\n  "runs": [\n' + lines + "\n  ]\n}\n")
    print(f"{dst}: {len(runs)} runs from {len(runs) // 3} rows", file=sys.stderr)
    for k, v in sorted(skipped.items(), key=lambda kv: -kv[1]):
        print(f"  skipped {v}: {k}", file=sys.stderr)

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
