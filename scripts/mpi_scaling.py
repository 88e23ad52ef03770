"""The mpi engine's bytes and memory per rank in BENCHMARKS.md ("MPI engine:
bytes and memory per rank") and docs/mpi-scaling.md: `spmx spmv` and
`spmx spgemm --partition 1d|2d` (A·A) under mpirun at 1, 2, 4, 8 and 16 ranks
(oversubscribed: bytes and memory are what a 2-core machine can measure) on
a 2D mesh, an R-MAT graph and a power-law matrix; for every rank the bytes
predicted and measured, its peak memory and what it held above its start.

Usage: python3 scripts/mpi_scaling.py LOG JSON (after `cargo build --release
--features mpi`). Inputs go to $TMPDIR/spmx-mpi-scaling."""
import json, os, re, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spmx = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target")), "release", "spmx")
work = os.path.join(os.environ.get("TMPDIR", "/tmp"), "spmx-mpi-scaling")
os.makedirs(work, exist_ok=True)
inputs = {
    "mesh": ["poisson2d", "--n", "1000"],
    "rmat": ["rmat", "--scale", "16", "--edge-factor", "8"],
    "plaw": ["power-law", "--rows", "200000", "--mean", "8"],
}
ROW = re.compile(
    r"\s*rank\s+(\d+): (\d+)\.\.(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+(\d+)\s+(\d+)"
    r"\s+(\S+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)"
)
mpirun = ["mpirun", "--oversubscribe"] + (["--allow-run-as-root"] if os.getuid() == 0 else [])
log = open(sys.argv[1], "w")


def run(args, ranks):
    cmd = mpirun + ["-np", str(ranks), spmx] + args + ["--engine", "mpi", "--threads", "1"]
    t = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    text = p.stdout + p.stderr
    log.write(f"$ spmx {' '.join(args)} on {ranks} rank(s) ({time.time() - t:.1f} s)\n{text}\n")
    log.flush()
    if p.returncode != 0:
        sys.exit(text)
    per_rank = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            g = m.groups()
            num = lambda s: None if s == "-" else int(s)
            per_rank.append(dict(
                rank=int(g[0]), rows=[int(g[1]), int(g[2])], entries=int(g[3]),
                time_ms=float(g[4]), sent=int(g[6]), received=int(g[7]),
                predicted_sent=num(g[8]), predicted_received=num(g[9]),
                peak_mib=float(g[10]), held_mib=float(g[11])))
    multiply = re.search(r"multiply\s+([\d.]+) s", text)
    plan = re.search(r"partition\s+(.*)", text)
    return dict(per_rank=per_rank, multiply_s=float(multiply.group(1)),
                plan=plan.group(1) if plan else None)


results = []
for name, gen in inputs.items():
    path = os.path.join(work, name + ".mtx")
    subprocess.run([spmx, "gen"] + gen + ["-o", path], check=True, capture_output=True)
    for ranks in [1, 2, 4, 8, 16]:
        results.append(dict(input=name, op="spmv", ranks=ranks, **run(["spmv", path], ranks)))
        for partition in ["1d", "2d"]:
            r = run(["spgemm", path, "--partition", partition], ranks)
            results.append(dict(input=name, op="spgemm", partition=partition, ranks=ranks, **r))
            busiest = max(x["sent"] + x["received"] for x in r["per_rank"])
            print(f"{name} {ranks:2} {partition}: busiest rank {busiest} B, "
                  f"held {max(x['held_mib'] for x in r['per_rank']):.1f} MiB", flush=True)
json.dump(results, open(sys.argv[2], "w"), indent=1)
