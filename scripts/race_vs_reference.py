#!/usr/bin/env python3
"""A race with its independent reference beside it, on a GPU machine.

Runs `spmx bench OP ...` (writing its JSON and its generated inputs), then
cusparse_reference.py (cuSPARSE through CuPy with CuPy's warm memory pool)
on the same matrices, in the same call, and prints one markdown table per
race: our time, the race's cuSPARSE, the reference's cuSPARSE, and the
ratios. The race's cuSPARSE may be at most 15% slower than the reference
(`race/ref` at most 1.15) wherever the reference does not mark the case
`overhead_bound`; a case that is slower is flagged `SLOW`.

    python3 race_vs_reference.py --out DIR --name spgemm-f32 \\
        [--spmx ./spmx] [--reference cusparse_reference.py] \\
        -- spgemm --suite spgemm,validate --type f32 --max-products 2000000000

    python3 race_vs_reference.py --compare RACE.json REF.jsonl   # table only

Writes DIR/NAME.json (the race), DIR/NAME-ref.jsonl (the reference) and
DIR/NAME.md (the table); generated inputs go to DIR/../inputs-NAME unless
--inputs says where. The reference times SpMM with column-major B and C
only, so a row-major SpMM race gets no reference column.
"""
import argparse
import json
import math
import os
import subprocess
import sys

# Our implementation in each race's JSON (the auto kernels; SpGEMM's one).
OURS = {"spmv": "auto", "spmm": "auto", "spgemm": "spgemm"}
# How much slower than the reference the race's cuSPARSE may be.
AGREEMENT = 1.15


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def stem(file_name):
    for suffix in (".gz", ".mtx"):
        if file_name.endswith(suffix):
            file_name = file_name[: -len(suffix)]
    return file_name


def reference_key(race):
    """The reference's field for a race's cases, given k."""
    op = race["operation"]
    if op == "spmv":
        return lambda k: "spmv_ms"
    if op == "spgemm":
        return lambda k: "spgemm_ms"
    if race.get("layout") == "col-major":
        return lambda k: f"spmm{k}_colmajor_ms"
    return None


def compare(race, references):
    """Markdown lines: the table and the summary."""
    op = race["operation"]
    by_file = {stem(r["file"]): r for r in references if "file" in r}
    key = reference_key(race)
    lines = [
        f"{op} {race['value_type']} {race.get('layout') or ''} on {race['device']['name']}, "
        f"cuSPARSE {race['device'].get('cusparse')}; reference: "
        + ", ".join(f"{k} {v}" for k, v in (references[0] if references else {}).items()
                    if k in ("device", "cusparse", "cupy", "type")),
        "",
        "| case | set | spmx ms | race cuSPARSE ms | reference ms | race/ref | spmx vs race | spmx vs ref | spmx cold ms | cuSPARSE cold ms | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    per_set, slow, missing = {}, [], []
    for m in race["matrices"]:
        name, k = m["name"], m.get("k")
        matrix = name.split(" k=")[0]
        ours = next((o for o in m["results"] if not o["vendor"] and o["implementation"] == OURS[op]), None)
        vendors = [o for o in m["results"] if o["vendor"] and o.get("ms")]
        fastest = min(vendors, key=lambda o: o["ms"]["median"]) if vendors else None
        ours_ms = ours["ms"]["median"] if ours and ours.get("ms") else None
        race_ms = fastest["ms"]["median"] if fastest else None
        ref = by_file.get(matrix, {})
        field = key(k) if key else None
        ref_ms = ref.get(field) if field else None
        note = []
        bound = field in ref.get("overhead_bound", []) if field else False
        if bound:
            note.append("overhead_bound")
        if field and ref_ms is None:
            note.append(ref.get("spgemm_error", "no reference")[:60] if ref else "no reference")
            missing.append(name)
        agree = race_ms / ref_ms if race_ms and ref_ms else None
        if agree and agree > AGREEMENT and not bound:
            note.append("SLOW")
            slow.append(f"{name} ({agree:.2f})")
        if ours is None or ours.get("status") != "ok":
            note.append(f"spmx {ours['status'] if ours else 'absent'}")
        vs_race = race_ms / ours_ms if race_ms and ours_ms else None
        vs_ref = ref_ms / ours_ms if ref_ms and ours_ms else None
        stats = per_set.setdefault(m["set"], {"race": [], "ref": []})
        stats["race"].append(vs_race)
        if not bound:
            stats["ref"].append(vs_ref)
        fmt = lambda v, p=3: "–" if v is None else f"{v:.{p}f}"
        ratio = lambda v: "–" if v is None else f"{v:.2f}×"
        lines.append(
            f"| {name} | {m['set']} | {fmt(ours_ms)} | {fmt(race_ms)} | {fmt(ref_ms)} | "
            f"{fmt(agree, 2)} | {ratio(vs_race)} | {ratio(vs_ref)} | "
            f"{fmt(ours.get('cold_ms') if ours else None)} | "
            f"{fmt(fastest.get('cold_ms') if fastest else None)} | {'; '.join(note)} |"
        )
    lines.append("")
    for s, stats in per_set.items():
        g_race, g_ref = geomean(stats["race"]), geomean(stats["ref"])
        mins = [v for v in stats["ref"] if v]
        lines.append(
            f"- {s}: spmx vs race cuSPARSE geomean "
            + ("–" if g_race is None else f"{g_race:.2f}×")
            + f" over {len([v for v in stats['race'] if v])}; spmx vs reference geomean "
            + ("–" if g_ref is None else f"{g_ref:.2f}×")
            + f" over {len(mins)} (not overhead-bound)"
            + (f", min {min(mins):.2f}×" if mins else "")
        )
    lines.append(
        f"- race cuSPARSE more than {AGREEMENT:.2f}× the reference (not overhead-bound): "
        + (", ".join(slow) if slow else "none")
    )
    if missing:
        lines.append(f"- no reference time: {', '.join(missing)}")
    return lines


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip().startswith("{")]


def input_files(race, inputs_dir, real_dir):
    """The file of each raced matrix: a written input, else the real set's."""
    files = []
    for m in race["matrices"]:
        matrix = m["name"].split(" k=")[0]
        candidates = [os.path.join(inputs_dir, matrix + ".mtx")]
        if real_dir:
            candidates += [os.path.join(real_dir, matrix + ext) for ext in (".mtx", ".mtx.gz")]
        found = next((c for c in candidates if os.path.exists(c)), None)
        if found and found not in files:
            files.append(found)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--compare", nargs=2, metavar=("RACE_JSON", "REF_JSONL"))
    ap.add_argument("--out")
    ap.add_argument("--name")
    ap.add_argument("--inputs")
    ap.add_argument("--spmx", default="./spmx")
    ap.add_argument("--reference", default="cusparse_reference.py")
    ap.add_argument("bench", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    if args.compare:
        with open(args.compare[0]) as f:
            race = json.load(f)
        print("\n".join(compare(race, read_jsonl(args.compare[1]))))
        return 0
    if not (args.out and args.name and args.bench):
        ap.error("give --out, --name and the bench arguments after --, or --compare")
    bench = [a for a in args.bench if a != "--"]
    os.makedirs(args.out, exist_ok=True)
    inputs = args.inputs or os.path.join(os.path.dirname(os.path.abspath(args.out)), f"inputs-{args.name}")
    race_json = os.path.join(args.out, f"{args.name}.json")
    cmd = [args.spmx, "bench", *bench, "--json", race_json, "--write-inputs", inputs]
    print("$", " ".join(cmd), flush=True)
    status = subprocess.call(cmd)
    if not os.path.exists(race_json):
        print(f"the race wrote no {race_json} (exit {status})", file=sys.stderr)
        return 1
    with open(race_json) as f:
        race = json.load(f)
    files = input_files(race, inputs, os.environ.get("SPMX_REAL_DATA"))
    op = race["operation"]
    ref_args = ["--ops", op, "--type", race["value_type"]]
    ks = sorted({m["k"] for m in race["matrices"] if m.get("k")})
    if ks:
        ref_args += ["--k", ",".join(map(str, ks))]
    if "--max-products" in bench:
        ref_args += ["--max-products", bench[bench.index("--max-products") + 1]]
    ref_jsonl = os.path.join(args.out, f"{args.name}-ref.jsonl")
    if op != "spmm" or race.get("layout") == "col-major":
        cmd = [sys.executable, args.reference, *ref_args, *files]
        print("$", " ".join(cmd[:6]), f"... {len(files)} files", flush=True)
        with open(ref_jsonl, "w") as out:
            subprocess.call(cmd, stdout=out, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        references = read_jsonl(ref_jsonl)
    else:
        references = []
    table = "\n".join(compare(race, references))
    with open(os.path.join(args.out, f"{args.name}.md"), "w") as f:
        f.write(table + "\n")
    print(table)
    return status


if __name__ == "__main__":
    sys.exit(main())
