"""Per-case table of a `spmx bench spgemm --numeric` run (spmx's numeric
phase against cusparseSpGEMMreuse_compute), from its --json files.
Usage: numeric_md.py numeric-f32.json numeric-f64.json > spgemm-numeric.md"""
import json
import sys

for path in sys.argv[1:]:
    run = json.load(open(path))
    print(f"## {run['value_type']} ({run['device']['name']})\n")
    print("| case | set | flops (2 a product) | spmx ms | mode | reuse_compute ms | ratio |")
    print("|---|---|---|---|---|---|---|")
    for m in run["matrices"]:
        res = {r["implementation"]: r for r in m["results"]}
        ours, theirs = res.get("spgemm-numeric"), res.get("cusparse-spgemm-reuse")
        if not ours or not theirs or ours["status"] != "ok" or theirs["status"] != "ok":
            print(f"| {m['name']} | {m['set']} | {m['flops']} | (not run) | | | |")
            continue
        mode = "lists" if "lists" in ours["note"] else "rows"
        a, b = ours["ms"]["median"], theirs["ms"]["median"]
        print(f"| {m['name']} | {m['set']} | {m['flops']} | {a:.3f} | {mode} | {b:.3f} | {b / a:.2f}× |")
    print()
    for s in run["summary"]:
        print(f"- {s['set']}: geomean {s['geomean_vs_cusparse']:.2f}× over {s['matrices']}, "
              f"min {s['min_vs_cusparse']:.2f}× ({s['min_matrix']})")
    print()
