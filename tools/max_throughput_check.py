# MemWall's best output tokens per second per device against TensorRT-LLM's published max-throughput table
# (tests/data/maxthroughput/trtllm-perf-overview.json, issue #37). trtllm-bench runs as many requests as fit and the
# page does not give the batch, so for each row MemWall analyses the row's request (phase generate, its lengths,
# parallelism and formats, achievable efficiency, CUDA graphs) at attention_dp x 2^k sequences, k = 0..13, and keeps
# the best tokens/s per device among the batches whose memory fits. Prints each row's ratio (MemWall / published)
# and the median ratio per model and overall.
#   python3 tools/max_throughput_check.py build-test/app/memwall tests/data/maxthroughput/trtllm-perf-overview.json
import json, statistics, subprocess, sys

def analyse(memwall, row, batch):
    args = [memwall, "analyze", "--model", row["model"], "--hardware", row["device"], "--phase", "generate",
            "--batch", str(batch), "--seq", str(row["input_tokens"]), "--output", str(row["output_tokens"]),
            "--tp", str(row.get("tp", 1)), "--weights", row["weights"], "--activations", row["activations"],
            "--kv", row["kv"], "--efficiency", "achievable", "--execution", "graphs", "--allreduce", "custom", "--json"]
    # The experts in the row's weight format unless it names theirs: on the command line a preset's checkpoint
    # format (DeepSeek-V3's FP8 blocks) stays the experts' when only --weights is given.
    args += ["--expert-weights", row.get("expert_weights", row["weights"])]
    for key, flag in (("attention_dp", "--attention-dp"), ("moe_ep", "--moe-ep"),
                      ("expert_activations", "--expert-activations"), ("activation_scales", "--activation-scales")):
        if key in row:
            args += [flag, str(row[key])]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "failed"
    j = json.loads(p.stdout)
    if not j["memory"]["fits"]:
        return None, "does not fit"
    return j["totals"]["tokens_per_s"] / j["parallelism"]["devices"], ""

def best(memwall, row):
    adp = row.get("attention_dp", 1)
    top, at, why = None, None, ""
    for k in range(14):
        v, why = analyse(memwall, row, adp * 2 ** k)
        if v is None:
            break  # a larger batch does not fit either
        if top is None or v > top:
            top, at = v, adp * 2 ** k
    return top, at, why

def main(memwall, path):
    rows = json.load(open(path))["rows"]
    ratios, by_model = [], {}
    for r in rows:
        v, batch, why = best(memwall, r)
        if v is None:
            print(f"{r['id']}: not analysed ({why})")
            continue
        ratio = v / r["value"]
        ratios.append(ratio)
        by_model.setdefault(r["model"], []).append(ratio)
        print(f"{r['id']}: MemWall {v:,.0f} tokens/s/GPU at batch {batch}, published {r['value']:,.0f}: {ratio:.2f}x")
    for m, rs in sorted(by_model.items()):
        print(f"{m}: median {statistics.median(rs):.2f}x over {len(rs)} rows")
    print(f"all: median {statistics.median(ratios):.2f}x over {len(ratios)} of {len(rows)} rows; within 20 %: "
          f"{sum(1 for x in ratios if abs(x - 1) <= 0.2)} rows")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
