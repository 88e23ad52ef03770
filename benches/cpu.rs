//! cpu-engine throughput against the serial engine and sprs 0.11, in one
//! process, f64 plus-times: SpGEMM (C = A·A on every square real matrix,
//! the course pair A·B, R-MAT, 2D Poisson, uniform; and the numeric phase
//! alone of a `SpgemmPlan` for the same product, column `plan`) and CSR
//! SpMV (the same set plus a big Poisson and a big uniform matrix).
//!
//! Every engine's first (warm-up) result is checked before its time
//! counts: the cpu engine's must equal the serial engine's bit for bit,
//! sprs's must have the same pattern and values within 1e-12 relative. A
//! time is the median of at least `--runs` runs (more, up to 201, until
//! 0.3 s of one engine's runs have passed). The cpu engine and sprs run in
//! one rayon pool of `--threads` threads (sprs 0.11's SpGEMM splits rows
//! into up to `num_cpus` chunks on the current pool; its SpMV,
//! `prod::mul_acc_mat_vec_csr` on slices, the same loop `&a * &x` runs on an
//! ndarray vector, is one thread).
//!
//! `cargo bench --bench cpu [-- [spgemm] [spmv] [--runs N] [--threads N] [--skip NAME] [--file A.mtx]… [NAME…]]`
//!
//! Words pick the operations (both by default) and the cases whose names
//! contain them all; `--skip` drops the cases whose names contain it.
//! `--file` (repeatable) races the square matrices in those files instead
//! of the built-in set. Real matrices come from `../shared/bench-data/real` (or
//! `$SPMX_REAL_DATA`); without that folder they are skipped, saying so.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use spmx::engine::cpu::spgemm::CpuSpgemmPlan;
use spmx::engine::{cpu, serial};
use spmx::generate::{self, GenSpec, RmatParams};
use spmx::io::{ReadOptions, read_mtx};
use spmx::{Csr, PlusTimes, ops};

type S = PlusTimes<f64>;

/// Fewest runs after the warm-up, and the time after which runs stop.
const MIN_RUNS: usize = 5;
const MIN_TIME: Duration = Duration::from_millis(300);
const MAX_RUNS: usize = 201;

/// Products above which a SpGEMM case is skipped: `arrow` squared (a dense
/// row times a dense column) would make a dense 46500² C, 26 GB.
const MAX_PRODUCTS: usize = 500_000_000;

struct Options {
    spgemm: bool,
    spmv: bool,
    runs: usize,
    threads: usize,
    filters: Vec<String>,
    skips: Vec<String>,
    files: Vec<PathBuf>,
}

fn options() -> Options {
    let mut o = Options {
        spgemm: false,
        spmv: false,
        runs: MIN_RUNS,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        filters: Vec::new(),
        skips: Vec::new(),
        files: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> usize {
            let v = args.next().unwrap_or_default();
            v.parse()
                .unwrap_or_else(|_| panic!("{name} wants a number, got {v:?}"))
        };
        match arg.as_str() {
            "--bench" => {} // cargo bench passes it to every bench
            "spgemm" => o.spgemm = true,
            "spmv" => o.spmv = true,
            "--runs" => o.runs = number("--runs").max(1),
            "--threads" => o.threads = number("--threads").max(1),
            "--skip" => o.skips.push(args.next().unwrap_or_default()),
            "--file" => o.files.push(args.next().unwrap_or_default().into()),
            _ if arg.starts_with('-') => panic!("unknown option {arg}"),
            _ => o.filters.push(arg),
        }
    }
    if !o.spgemm && !o.spmv {
        (o.spgemm, o.spmv) = (true, true);
    }
    o
}

/// One input: C = A·B, or A·A when `b` is `None`.
struct Case {
    name: String,
    real: bool,
    a: Csr<f64>,
    b: Option<Csr<f64>>,
}

impl Case {
    fn b(&self) -> &Csr<f64> {
        self.b.as_ref().unwrap_or(&self.a)
    }
}

fn data_dir() -> PathBuf {
    std::env::var_os("SPMX_REAL_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/bench-data/real"),
        PathBuf::from,
    )
}

/// The matrix in `path` as a case of its own, A·A; `None` (saying so) if
/// it is not square.
fn file_case(path: &std::path::Path, real: bool) -> Option<Case> {
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    let name = file.trim_end_matches(".gz").trim_end_matches(".mtx");
    let a = read_mtx::<f64>(path, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .coo
        .to_csr();
    if a.nrows() != a.ncols() {
        println!("skipping {name}: {}×{}, not square", a.nrows(), a.ncols());
        return None;
    }
    Some(Case {
        name: name.to_string(),
        real,
        a,
        b: None,
    })
}

/// Every square matrix of the real set but the toy ones (`kind` "toy" in
/// MANIFEST.tsv: the 7×7 APSP pair).
fn real_cases() -> Vec<Case> {
    let dir = data_dir();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!(
            "skipping the real matrices: no folder {} (set SPMX_REAL_DATA)",
            dir.display()
        );
        return Vec::new();
    };
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap_or_default();
    let toy = |file: &str| {
        manifest
            .lines()
            .any(|l| l.starts_with(&format!("{file}\t")) && l.split('\t').any(|c| c == "toy"))
    };
    let mut files: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mtx") || n.ends_with(".mtx.gz"))
        .collect();
    files.sort();
    files
        .iter()
        .filter(|file| !toy(file))
        .filter_map(|file| file_case(&dir.join(file), true))
        .collect()
}

fn generated(name: &str, a: Csr<f64>, b: Option<Csr<f64>>) -> Case {
    Case {
        name: name.to_string(),
        real: false,
        a,
        b,
    }
}

/// The CLI's built-in pair (`spmx spgemm` with no files, seed 2026),
/// made as `cli/src/spgemm.rs`'s `default_pair` makes it.
fn course_pair() -> Case {
    let (n, seed) = (8191, 2026u64);
    let uniform = |min_per_row, max_per_row, seed| {
        GenSpec::Uniform {
            nrows: n,
            ncols: n,
            min_per_row,
            max_per_row,
        }
        .generate(seed)
        .unwrap()
    };
    let a = uniform(90, 100, seed);
    let b = uniform(4, 7, seed.wrapping_add(1));
    generated("course A·B", a, Some(b))
}

fn generated_cases(big: bool) -> Vec<Case> {
    let mut cases = vec![course_pair()];
    for scale in 14..=16 {
        let a = generate::rmat(RmatParams::graph500(scale), 1).unwrap();
        cases.push(generated(&format!("rmat{scale}"), a, None));
    }
    cases.push(generated(
        "poisson2d 500²",
        generate::poisson2d(500).unwrap(),
        None,
    ));
    cases.push(generated(
        "uniform 100k 5–15",
        generate::uniform(100_000, 100_000, 5, 15, 3).unwrap(),
        None,
    ));
    if big {
        cases.push(generated(
            "poisson2d 2000²",
            generate::poisson2d(2000).unwrap(),
            None,
        ));
        cases.push(generated(
            "uniform 2M 8–16",
            generate::uniform(2_000_000, 2_000_000, 8, 16, 4).unwrap(),
            None,
        ));
    }
    cases
}

/// One contender in a race: runs the operation once and returns its result,
/// to be dropped outside the timed region.
type Run<'a> = Box<dyn FnMut() -> Box<dyn std::any::Any> + 'a>;

/// Times the contenders interleaved, a round at a time in rotating order
/// (so a burst of load elsewhere hits all of them alike): the median of at
/// least `runs` rounds, more until `MIN_TIME` per contender has passed or
/// `MAX_RUNS` rounds. Each contender should have run once already (the
/// checked warm-up).
fn race(runs: usize, contenders: &mut [Run]) -> Vec<Duration> {
    let n = contenders.len();
    let mut times = vec![Vec::new(); n];
    let start = Instant::now();
    let mut round = 0;
    while round < runs || (start.elapsed() < MIN_TIME * n as u32 && round < MAX_RUNS) {
        for k in 0..n {
            let c = (round + k) % n;
            let t = Instant::now();
            let r = contenders[c]();
            times[c].push(t.elapsed());
            drop(r);
        }
        round += 1;
    }
    times
        .into_iter()
        .map(|mut t| {
            t.sort();
            t[t.len() / 2]
        })
        .collect()
}

fn to_sprs(a: &Csr<f64>) -> sprs::CsMat<f64> {
    sprs::CsMat::new(
        a.shape(),
        a.row_ptr().to_vec(),
        a.col_idx().iter().map(|&c| c as usize).collect(),
        a.values().to_vec(),
    )
}

/// Equal up to 1e-12 relative (both exactly equal, ±0 included, passes).
fn close(got: f64, want: f64) -> bool {
    got == want || (got - want).abs() <= 1e-12 * got.abs().max(want.abs())
}

#[track_caller]
fn assert_same_bits(got: &Csr<f64>, want: &Csr<f64>, what: &str) {
    assert!(
        got.same_bits(want),
        "{what}: differs from the serial engine"
    );
}

#[track_caller]
fn assert_sprs_close(got: &sprs::CsMat<f64>, want: &Csr<f64>, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}: shape");
    assert_eq!(
        got.indptr().raw_storage(),
        want.row_ptr(),
        "{what}: row_ptr"
    );
    assert!(
        got.indices()
            .iter()
            .zip(want.col_idx())
            .all(|(&g, &w)| g == w as usize),
        "{what}: column indices (structural zeros dropped?)"
    );
    let bad = got
        .data()
        .iter()
        .zip(want.values())
        .filter(|&(&g, &w)| !close(g, w))
        .count();
    assert_eq!(bad, 0, "{what}: {bad} values differ by more than 1e-12");
}

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}

/// Geometric mean; 0 for an empty list.
fn geomean(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return 0.0;
    }
    (xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp()
}

/// Speedups of the cpu engine over sprs and over serial, per case.
#[derive(Default)]
struct Ratios {
    vs_sprs: Vec<f64>,
    vs_serial: Vec<f64>,
}

impl Ratios {
    fn push(&mut self, vs_sprs: f64, vs_serial: f64) {
        self.vs_sprs.push(vs_sprs);
        self.vs_serial.push(vs_serial);
    }
}

fn print_geomeans(label: &str, r: &Ratios) {
    if !r.vs_sprs.is_empty() {
        println!(
            "  geomean {label:<40} cpu/sprs {:>5.2}×  cpu/serial {:>5.2}×  ({} cases)",
            geomean(&r.vs_sprs),
            geomean(&r.vs_serial),
            r.vs_sprs.len()
        );
    }
}

fn bench_spgemm(cases: &[&Case], o: &Options) {
    println!(
        "\nSpGEMM, f64 plus-times, C = A·B (A·A unless named), median ms; GFLOP/s = 2·products/time; cpu and sprs on {} threads",
        o.threads
    );
    println!(
        "{:<20} {:>8} {:>9} {:>11} {:>10} | {:>9} {:>9} {:>9} {:>9} | {:>6} {:>6} {:>6} | {:>8} {:>10} {:>9}",
        "matrix",
        "n",
        "nnz(A)",
        "products",
        "nnz(C)",
        "serial",
        "cpu",
        "sprs",
        "plan",
        "GF ser",
        "GF cpu",
        "GF sps",
        "cpu/sprs",
        "cpu/serial",
        "cpu/plan"
    );
    let (mut real, mut generated_set, mut above) =
        (Ratios::default(), Ratios::default(), Ratios::default());
    for case in cases {
        let (a, b) = (&case.a, case.b());
        let products = ops::spgemm_products(a, b);
        if products > MAX_PRODUCTS {
            println!(
                "{:<20} skipped: {products} products (over {MAX_PRODUCTS}; C would not fit in memory)",
                case.name
            );
            continue;
        }
        let want = serial::spgemm::<S>(a, b);
        assert_same_bits(&cpu::spgemm::<S>(a, b), &want, &case.name);
        let (sa, sb) = (to_sprs(a), to_sprs(b));
        assert_sprs_close(&(&sa * &sb), &want, &case.name);
        let mut plan = CpuSpgemmPlan::<S>::new(a, b);
        assert_same_bits(plan.product(), &want, &case.name);
        let [t_serial, t_cpu, t_sprs, t_plan] = race(
            o.runs,
            &mut [
                Box::new(|| Box::new(serial::spgemm::<S>(a, b))),
                Box::new(|| Box::new(cpu::spgemm::<S>(a, b))),
                Box::new(|| Box::new(&sa * &sb)),
                Box::new(|| {
                    plan.numeric(a.values(), b.values()).unwrap();
                    Box::new(())
                }),
            ],
        )[..] else {
            unreachable!()
        };
        let gf = |t: Duration| 2.0 * products as f64 / t.as_secs_f64() / 1e9;
        let (vs_sprs, vs_serial) = (
            t_sprs.as_secs_f64() / t_cpu.as_secs_f64(),
            t_serial.as_secs_f64() / t_cpu.as_secs_f64(),
        );
        assert_same_bits(plan.product(), &want, &case.name);
        println!(
            "{:<20} {:>8} {:>9} {:>11} {:>10} | {:>9.3} {:>9.3} {:>9.3} {:>9.3} | {:>6.2} {:>6.2} {:>6.2} | {:>7.2}× {:>9.2}× {:>8.2}×",
            case.name,
            a.nrows(),
            a.nnz(),
            products,
            want.nnz(),
            ms(t_serial),
            ms(t_cpu),
            ms(t_sprs),
            ms(t_plan),
            gf(t_serial),
            gf(t_cpu),
            gf(t_sprs),
            vs_sprs,
            vs_serial,
            t_cpu.as_secs_f64() / t_plan.as_secs_f64()
        );
        if case.real {
            &mut real
        } else {
            &mut generated_set
        }
        .push(vs_sprs, vs_serial);
        if products >= cpu::spgemm::SERIAL_BELOW_FLOPS {
            above.push(vs_sprs, vs_serial);
        }
    }
    print_geomeans("real set (A·A)", &real);
    print_geomeans("generated", &generated_set);
    print_geomeans(
        &format!("≥ {} products (parallel)", cpu::spgemm::SERIAL_BELOW_FLOPS),
        &above,
    );
}

/// x(j) in (0, 1], from j alone.
fn x_vector(n: usize) -> Vec<f64> {
    (0..n)
        .map(|j| {
            ((j as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f64 / (1u64 << 24) as f64
                + 1e-3
        })
        .collect()
}

/// Device copy bandwidth as the method asks: one 512 MiB copy, bytes read
/// plus bytes written, on one thread and on all of the pool's.
fn copy_bandwidth(runs: usize) -> (f64, f64) {
    let len = 64 << 20;
    let src: Vec<f64> = x_vector(len);
    let mut dst = vec![0.0f64; len];
    let bytes = 2.0 * 8.0 * len as f64;
    dst.copy_from_slice(&src);
    let one = race(
        runs,
        &mut [Box::new(|| {
            dst.copy_from_slice(&src);
            Box::new(())
        })],
    )[0];
    let all = race(
        runs,
        &mut [Box::new(|| {
            dst.par_chunks_mut(1 << 16)
                .zip(src.par_chunks(1 << 16))
                .for_each(|(d, s)| d.copy_from_slice(s));
            Box::new(())
        })],
    )[0];
    (
        bytes / one.as_secs_f64() / 1e9,
        bytes / all.as_secs_f64() / 1e9,
    )
}

fn bench_spmv(cases: &[&Case], o: &Options) {
    let (one, all) = copy_bandwidth(o.runs);
    println!(
        "\nSpMV, CSR f64 plus-times, y = A·x, median ms; GB/s with bytes = 12·nnz + 8·(m+1) + 8·n + 8·m"
    );
    println!(
        "copy bandwidth (512 MiB, read + write): {one:.1} GB/s on 1 thread, {all:.1} GB/s on {}",
        o.threads
    );
    println!(
        "{:<20} {:>8} {:>9} | {:>8} {:>8} {:>8} | {:>6} {:>6} {:>6} | {:>8} {:>10}",
        "matrix",
        "n",
        "nnz",
        "serial",
        "cpu",
        "sprs",
        "GB ser",
        "GB cpu",
        "GB sps",
        "cpu/sprs",
        "cpu/serial"
    );
    let (mut real, mut generated_set, mut above) =
        (Ratios::default(), Ratios::default(), Ratios::default());
    for case in cases {
        let a = &case.a;
        let x = x_vector(a.ncols());
        let want = serial::spmv::spmv_csr::<S>(a, &x);
        let same = cpu::spmv::spmv_csr::<S>(a, &x)
            .iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() == w.to_bits());
        assert!(same, "{}: cpu SpMV differs from serial", case.name);
        let sa = to_sprs(a);
        let sprs_spmv = || {
            let mut y = vec![0.0; sa.rows()];
            sprs::prod::mul_acc_mat_vec_csr(sa.view(), &x[..], &mut y[..]);
            y
        };
        let close_all = sprs_spmv().iter().zip(&want).all(|(&g, &w)| close(g, w));
        assert!(close_all, "{}: sprs SpMV differs from serial", case.name);
        let [t_serial, t_cpu, t_sprs] = race(
            o.runs,
            &mut [
                Box::new(|| Box::new(serial::spmv::spmv_csr::<S>(a, &x))),
                Box::new(|| Box::new(cpu::spmv::spmv_csr::<S>(a, &x))),
                Box::new(|| Box::new(sprs_spmv())),
            ],
        )[..] else {
            unreachable!()
        };
        let bytes = 12 * a.nnz() + 8 * (a.nrows() + 1) + 8 * a.ncols() + 8 * a.nrows();
        let gb = |t: Duration| bytes as f64 / t.as_secs_f64() / 1e9;
        let (vs_sprs, vs_serial) = (
            t_sprs.as_secs_f64() / t_cpu.as_secs_f64(),
            t_serial.as_secs_f64() / t_cpu.as_secs_f64(),
        );
        println!(
            "{:<20} {:>8} {:>9} | {:>8.3} {:>8.3} {:>8.3} | {:>6.1} {:>6.1} {:>6.1} | {:>7.2}× {:>9.2}×",
            case.name,
            a.nrows(),
            a.nnz(),
            ms(t_serial),
            ms(t_cpu),
            ms(t_sprs),
            gb(t_serial),
            gb(t_cpu),
            gb(t_sprs),
            vs_sprs,
            vs_serial
        );
        if case.real {
            &mut real
        } else {
            &mut generated_set
        }
        .push(vs_sprs, vs_serial);
        if a.nnz() >= cpu::spmv::SERIAL_BELOW_WORK {
            above.push(vs_sprs, vs_serial);
        }
    }
    print_geomeans("real set", &real);
    print_geomeans("generated", &generated_set);
    print_geomeans(
        &format!("≥ {} entries (parallel)", cpu::spmv::SERIAL_BELOW_WORK),
        &above,
    );
}

fn main() {
    let o = options();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.threads)
        .build()
        .unwrap();
    pool.install(|| {
        let t = Instant::now();
        let cases: Vec<Case> = if o.files.is_empty() {
            let mut cases = real_cases();
            cases.extend(generated_cases(o.spmv));
            cases
        } else {
            o.files.iter().filter_map(|f| file_case(f, false)).collect()
        };
        let wanted = |c: &&Case| {
            o.filters.iter().all(|f| c.name.contains(f.as_str()))
                && !o.skips.iter().any(|s| c.name.contains(s.as_str()))
        };
        println!(
            "{} inputs loaded or generated in {:.1} s",
            cases.len(),
            t.elapsed().as_secs_f64()
        );
        if o.spgemm {
            // The big SpMV-only inputs would take minutes as products.
            let spmv_only = |c: &&Case| c.name == "poisson2d 2000²" || c.name == "uniform 2M 8–16";
            let small: Vec<&Case> = cases
                .iter()
                .filter(wanted)
                .filter(|c| !spmv_only(c))
                .collect();
            bench_spgemm(&small, &o);
        }
        if o.spmv {
            let square: Vec<&Case> = cases
                .iter()
                .filter(wanted)
                .filter(|c| c.b.is_none())
                .collect();
            bench_spmv(&square, &o);
        }
    });
}
