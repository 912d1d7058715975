# The validation split of aiconfigurator's silicon_sample.csv (issue #37): a configuration (every concurrency of it
# together) is held out when the md5 of its key is odd.
import csv, hashlib, sys, collections
KEY = ["model_path","system","backend","mode","isl","osl","tp_size","pp_size","attention_dp_size","moe_tp_size","moe_ep_size","precision",
       "prefill_tp_size","prefill_attention_dp_size","prefill_moe_ep_size","decode_tp_size","decode_attention_dp_size","decode_moe_ep_size"]
def held_out(row):
    key = "|".join(row[k] for k in KEY)
    return int(hashlib.md5(key.encode()).hexdigest(), 16) % 2 == 1
rows = list(csv.DictReader(open(sys.argv[1])))
fields = list(rows[0].keys())
with open(sys.argv[2], "w", newline="") as b, open(sys.argv[3], "w", newline="") as h:
    wb, wh = csv.DictWriter(b, fields), csv.DictWriter(h, fields)
    wb.writeheader(); wh.writeheader()
    c = collections.Counter()
    for r in rows:
        (wh if held_out(r) else wb).writerow(r)
        c[(r["model_path"].split("/")[1][:20], r["mode"], "held" if held_out(r) else "build")] += 1
for k, v in sorted(c.items()): print(v, k)
