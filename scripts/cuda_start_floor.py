#!/usr/bin/env python3
"""The floor of spmx's start to result: what a process that only starts CUDA
and loads a few of spmx's kernels takes, as PTX (compiled by the driver, or
read from its JIT cache) or as cubins assembled ahead by ptxas.

    python3 scripts/cuda_start_floor.py prepare DIR [--ptxas PTXAS] [--arch sm_90]
        (here: cuts four entry points out of ptx/kernels-sm_80.ptx.gz, each with
        the PTX's common part, as spmx loads them, and assembles each with ptxas)
    python3 cuda_start_floor.py run DIR ptx|cubin
        (on the GPU machine: cuInit, the primary context, each module loaded,
        a first launch; time the whole process with /usr/bin/time)
"""
import argparse, ctypes, gzip, os, re, subprocess, sys, time

KERNELS = ["spin_ns", "spgemm_classify", "spmv_csr_adaptive_plus_times_f32",
           "spgemm_hash_numeric_plus_times_f64"]


def prepare(out, ptxas, arch):
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ptx = gzip.open(os.path.join(root, "ptx", "kernels-sm_80.ptx.gz"), "rt").read()
    common, entries, pos = [], {}, 0
    entry = re.compile(r"^\.visible \.entry (\w+)\(", re.M)
    while (m := entry.search(ptx, pos)) is not None:
        common.append(ptx[pos:m.start()])
        end = ptx.find("\n}\n", m.start())
        pos = len(ptx) if end < 0 else end + 3
        entries[m.group(1)] = ptx[m.start():pos]
    common.append(ptx[pos:])
    os.makedirs(out, exist_ok=True)
    for name in KERNELS:
        path = os.path.join(out, name + ".ptx")
        with open(path, "w") as f:
            f.write("".join(common) + "\n" + entries[name])
        subprocess.run([ptxas, f"-arch={arch}", "-O3", path, "-o",
                        os.path.join(out, name + ".cubin")], check=True)


def run(folder, mode):
    images = []
    for name in KERNELS:
        with open(os.path.join(folder, f"{name}.{mode}"), "rb") as f:
            images.append(f.read() + (b"\0" if mode == "ptx" else b""))
    t0 = time.perf_counter()
    cuda = ctypes.CDLL("libcuda.so.1")
    assert cuda.cuInit(0) == 0
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    assert cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0
    assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    assert cuda.cuCtxSetCurrent(ctx) == 0
    started = time.perf_counter()
    loads, modules = [], []
    for name, image in zip(KERNELS, images):
        t = time.perf_counter()
        module = ctypes.c_void_p()
        assert cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)) == 0, name
        modules.append(module)
        loads.append(f"{1e3 * (time.perf_counter() - t):.1f}")
    spin = ctypes.c_void_p()
    assert cuda.cuModuleGetFunction(ctypes.byref(spin), modules[0], b"spin_ns") == 0
    ns = ctypes.c_uint64(1000)
    params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(ns), ctypes.c_void_p))
    t = time.perf_counter()
    assert cuda.cuLaunchKernel(spin, 1, 1, 1, 1, 1, 1, 0, None, params, None) == 0
    assert cuda.cuCtxSynchronize() == 0
    print(f"{mode}: init+ctx {1e3 * (started - t0):.1f} ms; loads (ms): {', '.join(loads)}; "
          f"first launch+sync {1e3 * (time.perf_counter() - t):.2f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("dir")
    p.add_argument("--ptxas", default="ptxas")
    p.add_argument("--arch", default="sm_90")
    r = sub.add_parser("run")
    r.add_argument("dir")
    r.add_argument("mode", choices=["ptx", "cubin"])
    args = ap.parse_args()
    if args.what == "prepare":
        prepare(args.dir, args.ptxas, args.arch)
    else:
        run(args.dir, args.mode)


if __name__ == "__main__":
    sys.exit(main())
