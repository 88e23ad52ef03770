"""Per-case table of a `spmx bench spgemm --numeric` run (spmx's numeric
phase against cusparseSpGEMMreuse_compute), from its --json files, with the
geomean and min per set computed from the cases the file holds (a run cut
short leaves its summary empty).
The mode column names the replay's grid the plan kept (stop 45: a warp 1,
2 or 4 tiles, or the resident grid) and, from stop 46, whether it stages
C's entries.
Usage: numeric_md.py numeric-f32.json numeric-f64.json > spgemm-numeric.md"""
import json
import math
import sys

for path in sys.argv[1:]:
    run = json.load(open(path))
    print(f"## {run['value_type']} ({run['device']['name']})\n")
    print("| case | set | flops (2 a product) | spmx ms | mode | reuse_compute ms | ratio |")
    print("|---|---|---|---|---|---|---|")
    ratios = {}
    for m in run["matrices"]:
        res = {r["implementation"]: r for r in m["results"]}
        ours, theirs = res.get("spgemm-numeric"), res.get("cusparse-spgemm-reuse")
        if not ours or not theirs or ours["status"] != "ok" or theirs["status"] != "ok":
            print(f"| {m['name']} | {m['set']} | {m['flops']} | (not run) | | | |")
            continue
        note = ours["note"]
        if "lists" in note:
            if "lists on the resident" in note:
                mode = "lists, resident grid"
            else:
                # "a warp a tile", "a warp N tiles" or (stop 46) "the resident
                # grid", then "entries staged" or "entries by lane"
                mode = "lists, " + note.split("lists, ", 1)[1].split(";")[0]
        else:
            mode = "rows"
        a, b = ours["ms"]["median"], theirs["ms"]["median"]
        ratios.setdefault(m["set"], []).append((b / a, m["name"]))
        print(f"| {m['name']} | {m['set']} | {m['flops']} | {a:.3f} | {mode} | {b:.3f} | {b / a:.2f}× |")
    print()
    for s, rs in ratios.items():
        geomean = math.exp(sum(math.log(r) for r, _ in rs) / len(rs))
        low = min(rs)
        print(f"- {s}: geomean {geomean:.2f}× over {len(rs)}, min {low[0]:.2f}× ({low[1]})")
    print()
