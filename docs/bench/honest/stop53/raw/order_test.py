"""Does spmx's cpu engine run slower right after GraphBLAS has run in the
parent process (as in graphblas_spgemm.py, which times GraphBLAS first)?
Times spmx cpu and serial right after three GraphBLAS products, then again
after 20 s of quiet."""
import subprocess, sys, time
import graphblas as gb
spmx, path = sys.argv[1], sys.argv[2]
gb.ss.config["nthreads"] = 2
a = gb.io.mmread(path)
a = a.dup(dtype=gb.dtypes.FP64)
def spmx_runs(engine):
    out = subprocess.run([spmx, "spgemm", path, "--engine", engine, "--repeat", "3"], capture_output=True, text=True).stdout
    return [l.split()[1:-1] for l in out.splitlines() if l.strip().startswith("runs")][0]
for rnd in range(2):
    ts = []
    for _ in range(3):
        t = time.perf_counter(); c = a.mxm(a, gb.semiring.plus_times).new(); ts.append(round((time.perf_counter() - t) * 1e3, 1))
    del c
    print(rnd, "graphblas", ts, flush=True)
    print(rnd, "cpu right after", spmx_runs("cpu"), flush=True)
    print(rnd, "serial", spmx_runs("serial"), flush=True)
    time.sleep(20)
    print(rnd, "cpu after 20 s", spmx_runs("cpu"), flush=True)
    print(rnd, "serial after 20 s", spmx_runs("serial"), flush=True)
