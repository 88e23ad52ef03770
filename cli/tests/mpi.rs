//! The mpi engine against the reference, under `mpirun` (feature `mpi`;
//! `cargo test --features mpi --test mpi`).
//!
//! One binary, two roles (so it has its own `main`, `harness = false`):
//! - Started by cargo, it is the *launcher*: it runs itself under `mpirun`
//!   with 1, 2, 3 and 4 ranks (oversubscribed) as workers, and with 8 and
//!   16 as workers checking only the planned SpGEMM (1D, 2D, auto) on a
//!   few cases, then runs `spmx … --engine mpi` under `mpirun -np 3` on the
//!   real set (`--partition 2d` on 4 ranks for one matrix) and on bad
//!   input. Every launch has a time limit: a hang fails the test.
//! - Started by `mpirun` (with `SPMX_MPI_WORKER` set), it is a *worker*:
//!   every rank draws the same random matrices (rank 0's seed, printed) and
//!   checks scatter and gather, SpGEMM (rows fetched and B replicated;
//!   1D, 2D and auto planned, and each plan's predicted bytes),
//!   SpMV and SpMM against `common::reference`, APSP against the serial
//!   engine, and files read and written in parts against the whole-file
//!   reader and writer (`mpi/files.rs`), bit for bit, for several
//!   semirings, on odd shapes (0×0, empty rows, a dense row, rectangular),
//!   with balanced, uneven and empty-rank partitions; then one rank fails
//!   on purpose and every rank must return its error. The engine inside
//!   the ranks is cpu, or `$SPMX_MPI_RANK_ENGINE` (`cuda` on a GPU machine:
//!   `SPMX_MPI_WORKER=1 SPMX_MPI_RANK_ENGINE=cuda mpirun -np 2 <this test>`).

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "mpi/files.rs"]
mod files_in_parts;

use common::{TestScalar, arb_csr_shaped, assert_identical, reference};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use spmx::engine::mpi::{
    DistCsr, DistDense, Fetch, HaloCsr, Partition, Ranks, RowPartition, plan_spgemm, spgemm,
    spgemm_masked, spgemm_planned, summa_blocks,
};
use spmx::format::{Csr, Dense};
use spmx::ops::VectorMask;
use spmx::{Engine, Error, OrAnd, PlusTimes, Scalar, Semiring};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const WORKER: &str = "SPMX_MPI_WORKER";
/// [`WORKER`]'s value for a worker that checks only the planned (1D, 2D
/// and auto) SpGEMM, on [`PLANNED_CASES`] cases: the launches on many ranks.
const PLANNED_ONLY: &str = "planned";
/// Random cases per semiring of a [`PLANNED_ONLY`] worker.
const PLANNED_CASES: usize = 4;
/// The engine inside each worker rank (default cpu): `cuda` checks the
/// GPU ranks (run the workers by hand under mpirun on a GPU machine).
const RANK_ENGINE: &str = "SPMX_MPI_RANK_ENGINE";
/// Random cases each worker checks per semiring.
const CASES: usize = 40;
/// Longest a launch may take before it counts as a hang.
const LIMIT: Duration = Duration::from_secs(300);

fn main() {
    if std::env::var_os(WORKER).is_some() {
        worker();
        return;
    }
    if Command::new("mpirun").arg("--version").output().is_err() {
        println!("skipping the MPI tests: no mpirun (Debian: apt install openmpi-bin)");
        return;
    }
    let me = std::env::current_exe().unwrap();
    for (n, worker) in [
        (1, "1"),
        (2, "1"),
        (3, "1"),
        (4, "1"),
        (8, PLANNED_ONLY),
        (16, PLANNED_ONLY),
    ] {
        let t = Instant::now();
        let out = mpirun(n, &me, &[], Some(worker));
        assert!(out.ok, "{n} rank(s): the workers failed:\n{}", out.text);
        println!(
            "workers on {n} rank(s): ok ({:.1} s)",
            t.elapsed().as_secs_f64()
        );
    }
    cli_real_set();
    files_in_parts::cli_outputs_as_serial();
    cli_two_d_partition();
    cli_unreadable_input();
    cli_or_and_stored_zero_is_false();
    cli_apsp_negative_cycle_through_neg_inf();
    println!("mpi tests: ok");
}

/// What a launch printed and whether every rank succeeded.
struct Launch {
    ok: bool,
    text: String,
}

/// Runs `program args` on `n` ranks under mpirun, killed after [`LIMIT`];
/// `worker`: the value of [`WORKER`] to run it with.
fn mpirun(n: usize, program: &Path, args: &[&str], worker: Option<&str>) -> Launch {
    let mut cmd = Command::new("mpirun");
    cmd.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-np",
        &n.to_string(),
    ])
    .arg(program)
    .args(args)
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    if let Some(worker) = worker {
        cmd.env(WORKER, worker);
    }
    let mut child = cmd.spawn().expect("mpirun starts");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > LIMIT {
            child.kill().ok();
            let out = child.wait_with_output().unwrap();
            panic!(
                "mpirun -np {n} {} {args:?} hung for {LIMIT:?}:\n{}{}",
                program.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Launch {
        ok: out.status.success(),
        text: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// `spmx spgemm A B -o C --engine mpi` on 3 ranks equals the serial
/// engine's C for every matrix of the real set: B = A when A is square,
/// else B = Aᵀ (written beside C). Those of more than 100M products are
/// left out (minutes on two cores; arrow's C would not fit in memory).
fn cli_real_set() {
    let spmx = Path::new(env!("CARGO_BIN_EXE_spmx"));
    let dir = tempfile::tempdir().unwrap();
    for (name, a) in common::real_matrices("the MPI real-set test") {
        let path = common::real_data_dir().join(&name);
        let (b, b_path, how) = if a.nrows() == a.ncols() {
            (a.clone(), path.clone(), "A·A")
        } else {
            let at = a.transpose();
            let at_path = dir.path().join("at.mtx");
            spmx::io::write_mtx(&at_path, &at, spmx::io::Field::Real).unwrap();
            (at, at_path, "A·Aᵀ")
        };
        let products = spmx::ops::spgemm_products(&a, &b);
        if products > 100_000_000 {
            println!("  {name}: {products} products, skipped");
            continue;
        }
        let c_path = dir.path().join("c.mtx");
        let (a_arg, b_arg, c_arg) = (
            path.to_string_lossy(),
            b_path.to_string_lossy(),
            c_path.to_string_lossy(),
        );
        let args = [
            "spgemm",
            &a_arg,
            &b_arg,
            "-o",
            &c_arg,
            "--engine",
            "mpi",
            "--threads",
            "1",
        ];
        let out = mpirun(3, spmx, &args, None);
        assert!(out.ok, "{name}: spmx under mpirun failed:\n{}", out.text);
        let got = spmx::io::read_mtx::<f64>(&c_path, &Default::default()).unwrap();
        let want = spmx::engine::serial::spgemm::<PlusTimes<f64>>(&a, &b);
        assert_identical(&got.coo.to_csr(), &want);
        println!(
            "  {name}: C = {how} on 3 ranks is the serial C ({} entries)",
            want.nnz()
        );
    }
}

/// `spmx spgemm A -o C --engine mpi --partition 2d` on 4 ranks equals the
/// serial engine's C for a real matrix with stored zeros, and says so in
/// its summary; `--partition` without `--engine mpi` is refused, naming it.
fn cli_two_d_partition() {
    let spmx = Path::new(env!("CARGO_BIN_EXE_spmx"));
    let path = common::real_data_dir().join("bayer10.mtx.gz");
    if !path.exists() {
        println!("  skipping the 2D CLI check: no {}", path.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let c_path = dir.path().join("c.mtx");
    let (a_arg, c_arg) = (path.to_string_lossy(), c_path.to_string_lossy());
    let args = [
        "spgemm",
        &a_arg,
        "-o",
        &c_arg,
        "--engine",
        "mpi",
        "--threads",
        "1",
        "--partition",
        "2d",
    ];
    let out = mpirun(4, spmx, &args, None);
    assert!(
        out.ok,
        "spmx --partition 2d under mpirun failed:\n{}",
        out.text
    );
    assert!(out.text.contains("2d (grid 2×2)"), "{}", out.text);
    let a = spmx::io::read_mtx::<f64>(&path, &Default::default())
        .unwrap()
        .coo
        .to_csr();
    let got = spmx::io::read_mtx::<f64>(&c_path, &Default::default()).unwrap();
    assert_identical(
        &got.coo.to_csr(),
        &spmx::engine::serial::spgemm::<PlusTimes<f64>>(&a, &a),
    );
    let out = Command::new(spmx)
        .args(["spgemm", &a_arg, "--engine", "serial", "--partition", "2d"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("--partition"),
        "{err}"
    );
    println!("  bayer10 squared by SUMMA on 4 ranks is the serial C");
}

/// A file rank 0 cannot read ends every rank with its error, no hang.
fn cli_unreadable_input() {
    let spmx = Path::new(env!("CARGO_BIN_EXE_spmx"));
    for op in ["spgemm", "spmv", "spmm", "apsp"] {
        let args = [
            op,
            "/nonexistent/A.mtx",
            "--engine",
            "mpi",
            "--threads",
            "1",
        ];
        let out = mpirun(3, spmx, &args, None);
        assert!(!out.ok, "{op}: a missing file must fail:\n{}", out.text);
        assert!(
            out.text.contains("rank 0 of 3") && out.text.contains("/nonexistent/A.mtx"),
            "{op}: the error names the rank and the file:\n{}",
            out.text
        );
    }
    println!("  a missing input ends every rank with rank 0's error");
}

/// Issue 20 through `spmx … --semiring or-and --engine mpi` on 3 ranks: a
/// stored 0 is false, so C(1,2) = 0 ∧ 1 is written as 0 (kept: SpGEMM's
/// structural pattern), and y = A ⊗ [0, 0] is [0, 0].
fn cli_or_and_stored_zero_is_false() {
    let spmx = Path::new(env!("CARGO_BIN_EXE_spmx"));
    let dir = tempfile::tempdir().unwrap();
    let (a, x) = (dir.path().join("a.mtx"), dir.path().join("x.mtx"));
    std::fs::write(
        &a,
        "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 0\n2 2 1\n",
    )
    .unwrap();
    std::fs::write(&x, "%%MatrixMarket matrix array real general\n2 1\n0\n0\n").unwrap();
    let out_path = dir.path().join("out.mtx");
    let (a_arg, x_arg, out_arg) = (
        a.to_string_lossy(),
        x.to_string_lossy(),
        out_path.to_string_lossy(),
    );
    let common = ["--semiring", "or-and", "--engine", "mpi", "--threads", "1"];
    for (op, want) in [
        ("spgemm", vec![(0, 1, 0.0), (1, 1, 1.0)]),
        ("spmv", vec![(0, 0, 0.0), (1, 0, 0.0)]),
    ] {
        let mut args = vec![op, &a_arg];
        if op == "spmv" {
            args.push(&x_arg);
        }
        args.extend(["-o", &out_arg]);
        args.extend(common);
        let out = mpirun(3, spmx, &args, None);
        assert!(out.ok, "{op}: spmx under mpirun failed:\n{}", out.text);
        let got = spmx::io::read_mtx::<f64>(&out_path, &Default::default())
            .unwrap()
            .coo;
        let got: Vec<(u32, u32, f64)> = (0..got.nnz())
            .map(|e| (got.rows()[e], got.cols()[e], got.values()[e]))
            .collect();
        assert_eq!(got, want, "{op} over or-and on 3 ranks");
    }
    println!("  or-and on 3 ranks takes a stored 0 as false");
}

/// Issue 20's 8-vertex graph through `spmx apsp --engine mpi` on 3 ranks:
/// a negative cycle, on every rank, with a non-zero exit.
fn cli_apsp_negative_cycle_through_neg_inf() {
    let spmx = Path::new(env!("CARGO_BIN_EXE_spmx"));
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("g.mtx");
    std::fs::write(
        &g,
        "%%MatrixMarket matrix coordinate real general\n8 8 3\n1 2 -inf\n2 1 1\n1 3 1\n",
    )
    .unwrap();
    let g_arg = g.to_string_lossy();
    let args = ["apsp", &g_arg, "--engine", "mpi", "--threads", "1"];
    let out = mpirun(3, spmx, &args, None);
    assert!(
        !out.ok && out.text.contains("negative cycle"),
        "apsp through -inf on 3 ranks:\n{}",
        out.text
    );
    println!("  apsp on 3 ranks reports a negative cycle through -inf");
}

/// The worker: every check, on every rank.
fn worker() {
    let inner = std::env::var(RANK_ENGINE).map_or(Engine::Cpu, |e| e.parse().unwrap());
    let ranks = Ranks::start(inner).expect("MPI starts");
    let seed = ranks.broadcast_from(0, vec![fresh_seed()])[0];
    if ranks.is_root() {
        let inner = ranks.inner();
        println!(
            "mpi worker on {} rank(s) × {inner}, seed {seed} (SPMX_MPI_SEED to repeat)",
            ranks.size()
        );
    }
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes(seed)),
    );
    let planned_only = std::env::var(WORKER).is_ok_and(|w| w == PLANNED_ONLY);
    macro_rules! every_instance {
        ($($n:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {
            $($(if planned_only {
                planned_cases::<$S>(&ranks, &mut runner);
            } else {
                every_semiring::<$S>(&ranks, &mut runner);
            })+)*
        };
    }
    spmx::for_each_semiring!(every_instance! {});
    rounding_sensitive_sums(&ranks, &mut runner);
    let file_cases = if planned_only { CASES / 4 } else { CASES };
    files_in_parts::read_and_write_in_parts(&ranks, &mut runner, file_cases);
    files_in_parts::bad_files_fail_as_read_whole(&ranks, &mut runner, file_cases);
    files_in_parts::partition_and_repartition(&ranks, &mut runner, file_cases);
    if planned_only {
        ranks.barrier();
        return;
    }
    or_and_stored_zero_is_false(&ranks);
    apsp_matches_serial(&ranks, &mut runner);
    apsp_negative_cycle_through_neg_inf(&ranks);
    a_failing_rank_fails_every_rank(&ranks);
    ranks.barrier();
}

fn fresh_seed() -> u64 {
    match std::env::var("SPMX_MPI_SEED") {
        Ok(s) => s.parse().expect("SPMX_MPI_SEED is a number"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    }
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    for (i, chunk) in bytes.chunks_mut(8).enumerate() {
        chunk.copy_from_slice(&(seed.wrapping_mul(i as u64 * 2 + 1)).to_le_bytes());
    }
    bytes
}

/// A value drawn from `strategy` (the same on every rank: same seed, same draws).
fn draw<S: Strategy>(runner: &mut TestRunner, strategy: S) -> S::Value {
    strategy.new_tree(runner).unwrap().current()
}

/// Ways to split `n` rows (or the matrix `a`'s) across the ranks: by
/// entries, evenly, everything on the last rank, and random cuts.
fn partitions<T: Scalar>(ranks: &Ranks, runner: &mut TestRunner, a: &Csr<T>) -> Vec<RowPartition> {
    let (p, n) = (ranks.size(), a.nrows());
    let mut cuts: Vec<usize> = draw(runner, proptest::collection::vec(0..=n, p - 1));
    cuts.push(0);
    cuts.push(n);
    cuts.sort_unstable();
    vec![
        RowPartition::by_entries(a, p),
        RowPartition::even(n, p),
        all_on_last_rank(n, p),
        RowPartition::from_cuts(cuts).unwrap(),
    ]
}

/// `a` and `b` scattered from rank 0, each split one of the ways of
/// [`partitions`], drawn.
fn scatter_pair<T: TestScalar>(
    ranks: &Ranks,
    runner: &mut TestRunner,
    a: &Csr<T>,
    b: &Csr<T>,
) -> (DistCsr<T>, DistCsr<T>) {
    let root = ranks.is_root();
    let a_choices = partitions(ranks, runner, a);
    let a_rows = draw(runner, proptest::sample::select(a_choices));
    let b_choices = partitions(ranks, runner, b);
    let b_rows = draw(runner, proptest::sample::select(b_choices));
    let da = DistCsr::scatter(ranks, root.then_some((a, &a_rows))).unwrap();
    let db = DistCsr::scatter(ranks, root.then_some((b, &b_rows))).unwrap();
    (da, db)
}

/// `n` rows all on the last of `parts` ranks, the others empty.
fn all_on_last_rank(n: usize, parts: usize) -> RowPartition {
    let mut cuts = vec![0; parts];
    cuts.push(n);
    RowPartition::from_cuts(cuts).unwrap()
}

/// Scatter, gather, SpGEMM, SpMV and SpMM over `S` on random odd shapes.
fn every_semiring<S: Semiring>(ranks: &Ranks, runner: &mut TestRunner)
where
    S::Value: TestScalar,
{
    let root = ranks.is_root();
    for case in 0..CASES {
        // Sizes up to 2 rows a rank and beyond, so some ranks hold none.
        let dims = draw(runner, (0..=9usize, 0..=9usize, 0..=9usize));
        let (m, k, n) = dims;
        let a = draw(runner, arb_csr_shaped::<S::Value>(m, k)).map(common::in_domain::<S>);
        let b = draw(runner, arb_csr_shaped::<S::Value>(k, n)).map(common::in_domain::<S>);
        let what = format!(
            "{} case {case}: A {m}×{k}, B {k}×{n}",
            std::any::type_name::<S>()
        );
        for a_rows in partitions(ranks, runner, &a) {
            let b_choices = partitions(ranks, runner, &b);
            let b_rows = draw(runner, proptest::sample::select(b_choices));
            let da = DistCsr::scatter(ranks, root.then_some((&a, &a_rows))).unwrap();
            let db = DistCsr::scatter(ranks, root.then_some((&b, &b_rows))).unwrap();
            assert_eq!(
                da.local(),
                &a.rows(a_rows.range(ranks.rank())),
                "{what}: scatter"
            );
            assert_eq!(db.all_gather(ranks).unwrap(), b, "{what}: all-gather");
            if let Some(whole) = da.gather(ranks).unwrap() {
                assert_eq!(whole, a, "{what}: gather");
            }
            let want = reference::spgemm::<S>(&a, &b);
            let mask = draw(runner, arb_csr_shaped::<bool>(m, n));
            let dmask = DistCsr::scatter(ranks, root.then_some((&mask, &a_rows))).unwrap();
            for fetch in [Fetch::Rows, Fetch::Replicate, Fetch::Auto] {
                let c = spgemm::<S>(ranks, &da, &db, fetch).unwrap();
                assert_eq!(c.rows(), &a_rows, "{what}: C is split like A");
                if let Some(c) = c.gather(ranks).unwrap() {
                    assert_identical(&c, &want);
                }
                for complement in [false, true] {
                    let c = spgemm_masked::<S, bool>(ranks, &da, &db, &dmask, complement, fetch);
                    if let Some(c) = c.unwrap().gather(ranks).unwrap() {
                        assert_identical(&c, &reference::keep_allowed(&want, &mask, complement));
                    }
                }
            }
            dense_products::<S>(ranks, runner, &a, &da, &what);
            planned_products::<S>(ranks, (&a, &da), (&b, &db), &what);
        }
    }
}

/// [`planned_products`] on [`PLANNED_CASES`] random products, their sizes
/// up to two rows a rank, each split one random way.
fn planned_cases<S: Semiring>(ranks: &Ranks, runner: &mut TestRunner)
where
    S::Value: TestScalar,
{
    let most = 2 * ranks.size() + 1;
    for case in 0..PLANNED_CASES {
        let (m, k, n) = draw(runner, (0..=most, 0..=most, 0..=most));
        let a = draw(runner, arb_csr_shaped::<S::Value>(m, k)).map(common::in_domain::<S>);
        let b = draw(runner, arb_csr_shaped::<S::Value>(k, n)).map(common::in_domain::<S>);
        let what = format!(
            "{} case {case}: A {m}×{k}, B {k}×{n}",
            std::any::type_name::<S>()
        );
        let (da, db) = scatter_pair(ranks, runner, &a, &b);
        planned_products::<S>(ranks, (&a, &da), (&b, &db), &what);
    }
}

/// Plus-times products whose sums round differently in another order
/// (dense, values in [0, 1)): 1D, 2D and auto give the serial bits, f64
/// and f32.
fn rounding_sensitive_sums(ranks: &Ranks, runner: &mut TestRunner) {
    let root = ranks.is_root();
    let (m, k, n) = (5, 4 * ranks.size() + 7, 3);
    let mut dense = |rows: usize, cols: usize| {
        let values = draw(runner, proptest::collection::vec(0.0..1.0f64, rows * cols));
        Dense::try_new(rows, cols, values).unwrap().to_csr(0.0)
    };
    let (a, b) = (dense(m, k), dense(k, n));
    let (a_rows, b_rows) = (
        RowPartition::even(m, ranks.size()),
        all_on_last_rank(k, ranks.size()),
    );
    let da = DistCsr::scatter(ranks, root.then_some((&a, &a_rows))).unwrap();
    let db = DistCsr::scatter(ranks, root.then_some((&b, &b_rows))).unwrap();
    planned_products::<PlusTimes<f64>>(ranks, (&a, &da), (&b, &db), "sums of [0, 1) f64");
    let (a, b) = (a.map(|v| v as f32), b.map(|v| v as f32));
    let da = DistCsr::scatter(ranks, root.then_some((&a, &a_rows))).unwrap();
    let db = DistCsr::scatter(ranks, root.then_some((&b, &b_rows))).unwrap();
    planned_products::<PlusTimes<f32>>(ranks, (&a, &da), (&b, &db), "sums of [0, 1) f32");
}

/// The planned products of A and B (whole, and split): 1D (each fetch),
/// 2D and auto give the serial engine's C, split like A; 1D and 2D (up to
/// C's blocks) exchange exactly the bytes their plan predicted on this
/// rank; auto chooses 2D where, and only where, its busiest rank's
/// prediction is below 1D's.
fn planned_products<S: Semiring>(
    ranks: &Ranks,
    (a, da): (&Csr<S::Value>, &DistCsr<S::Value>),
    (b, db): (&Csr<S::Value>, &DistCsr<S::Value>),
    what: &str,
) where
    S::Value: TestScalar,
{
    let want = spmx::engine::serial::spgemm::<S>(a, b);
    let check = |c: DistCsr<S::Value>, how: &str| {
        assert_eq!(c.rows(), da.rows(), "{what}, {how}: C is split like A");
        if let Some(c) = c.gather(ranks).unwrap() {
            assert_identical(&c, &want);
        }
    };
    let moved = |before: spmx::engine::mpi::Traffic| {
        let t = ranks.traffic().since(before);
        (t.bytes_sent, t.bytes_received)
    };
    for fetch in [Fetch::Rows, Fetch::Replicate, Fetch::Auto] {
        let plan = plan_spgemm(ranks, da, db, fetch, Partition::OneD).unwrap();
        assert_eq!(plan.chosen(), Partition::OneD);
        let before = ranks.traffic();
        let c = spgemm_planned::<S>(ranks, da, db, &plan).unwrap();
        let predicted = (plan.one_d().sent, plan.one_d().received);
        assert_eq!(moved(before), predicted, "{what}, 1d {fetch:?}: bytes");
        assert!(plan.one_d_max() >= plan.one_d().total());
        check(c, "1d");
    }
    let plan = plan_spgemm(ranks, da, db, Fetch::Auto, Partition::TwoD).unwrap();
    assert_eq!(plan.chosen(), Partition::TwoD);
    let (pr, pc) = plan.grid().shape();
    assert!(pr * pc == ranks.size() && pr <= pc, "{pr}×{pc}");
    let before = ranks.traffic();
    let blocks = summa_blocks::<S>(ranks, da, db, &plan).unwrap();
    let predicted = (plan.two_d().sent, plan.two_d().received);
    assert_eq!(moved(before), predicted, "{what}, 2d on {plan}: bytes");
    check(blocks.to_rows(ranks, da.rows()).unwrap(), "2d");
    check(
        spgemm_planned::<S>(ranks, da, db, &plan).unwrap(),
        "2d planned",
    );
    let auto = plan_spgemm(ranks, da, db, Fetch::Auto, Partition::Auto).unwrap();
    let two_d = auto.two_d_max() < auto.one_d_max();
    assert_eq!(auto.chosen() == Partition::TwoD, two_d, "{what}: {auto}");
    check(spgemm_planned::<S>(ranks, da, db, &auto).unwrap(), "auto");
}

/// SpMV and SpMM with a random x and B, split two ways, against the
/// reference.
fn dense_products<S: Semiring>(
    ranks: &Ranks,
    runner: &mut TestRunner,
    a: &Csr<S::Value>,
    da: &DistCsr<S::Value>,
    what: &str,
) where
    S::Value: TestScalar,
{
    let root = ranks.is_root();
    for width in [1usize, 3] {
        let values = draw(
            runner,
            proptest::collection::vec(S::Value::arb(), a.ncols() * width),
        );
        let values = values.into_iter().map(common::in_domain::<S>).collect();
        let x = Dense::try_new(a.ncols(), width, values).unwrap();
        for x_rows in [
            RowPartition::even(a.ncols(), ranks.size()),
            all_on_last_rank(a.ncols(), ranks.size()),
        ] {
            let dx = DistDense::scatter(ranks, root.then_some((&x, &x_rows))).unwrap();
            let plan = HaloCsr::new(ranks, da, &x_rows).unwrap();
            let got = if width == 1 {
                plan.spmv::<S>(ranks, &dx).unwrap()
            } else {
                plan.spmm::<S>(ranks, &dx).unwrap()
            };
            let want = if width == 1 {
                reference::spmv::<S>(a, x.as_slice())
            } else {
                reference::spmm::<S>(a, &x).as_slice().to_vec()
            };
            let bits = |v: &[S::Value]| v.iter().map(|x| x.bits()).collect::<Vec<_>>();
            if let Some(got) = got.gather(ranks).unwrap() {
                assert_eq!(
                    bits(got.as_slice()),
                    bits(&want),
                    "{what}: A ⊗ x, width {width}"
                );
            }
            if width == 1 {
                // y⟨m⟩ = A ⊗ x over y = 1, 2, 3, …: every third row ruled
                // out, kept or (replace) set to the zero.
                let rows = da.rows().range(ranks.rank());
                let allowed: Vec<bool> = rows.clone().map(|i| i % 3 != 0).collect();
                let before: Vec<S::Value> = (0..a.nrows())
                    .map(|i| common::in_domain::<S>(S::Value::from_f64(i as f64 + 1.0)))
                    .collect();
                let y = Dense::try_new(rows.len(), 1, before[rows].to_vec()).unwrap();
                let y = DistDense::from_local(da.rows().clone(), y);
                for (complement, replace) in [(false, false), (true, true)] {
                    let mask = VectorMask {
                        allowed: &allowed,
                        complement,
                    };
                    let got = plan
                        .spmv_masked::<S>(ranks, &dx, &y, mask, replace)
                        .unwrap();
                    let want: Vec<S::Value> = (0..a.nrows())
                        .map(|i| match ((i % 3 != 0) != complement, replace) {
                            (true, _) => want[i],
                            (false, true) => S::zero(),
                            (false, false) => before[i],
                        })
                        .collect();
                    if let Some(got) = got.gather(ranks).unwrap() {
                        assert_eq!(bits(got.as_slice()), bits(&want), "{what}: y⟨m⟩ = A ⊗ x");
                    }
                }
            }
        }
    }
}

/// APSP on random non-negative graphs and on the real pair, against serial.
fn apsp_matches_serial(ranks: &Ranks, runner: &mut TestRunner) {
    for _ in 0..CASES {
        let n = draw(runner, 0..=12usize);
        let g = draw(runner, arb_csr_shaped::<f64>(n, n)).map(|w| w.abs());
        let got = spmx::app::apsp_mpi(ranks, ranks.is_root().then_some(&g)).unwrap();
        let want = spmx::app::apsp::apsp_squaring(&g, Engine::Serial, &mut |_| {}).unwrap();
        assert_eq!(got.squarings, want.squarings, "{n} vertices: squarings");
        if let Some(d) = got.distances.gather(ranks).unwrap() {
            assert_identical(&d, &want.distances);
        }
    }
    // A negative cycle is the same error on every rank.
    let g = Csr::try_new(2, 2, vec![0, 1, 2], vec![1, 0], vec![-1.0, -1.0]).unwrap();
    let err = spmx::app::apsp_mpi(ranks, ranks.is_root().then_some(&g)).unwrap_err();
    assert!(err.to_string().contains("negative cycle"), "{err}");
}

/// Issue 20: a stored `false` is false in or-and across ranks: SpGEMM
/// keeps C(0,1) = false ∧ true as a stored `false`, SpMV gives row 0
/// `false` whatever x is.
fn or_and_stored_zero_is_false(ranks: &Ranks) {
    let a = common::or_and_stored_zero();
    let root = ranks.is_root();
    for a_rows in [
        RowPartition::even(2, ranks.size()),
        all_on_last_rank(2, ranks.size()),
    ] {
        let da = DistCsr::scatter(ranks, root.then_some((&a, &a_rows))).unwrap();
        for fetch in [Fetch::Rows, Fetch::Replicate] {
            let c = spgemm::<OrAnd>(ranks, &da, &da, fetch).unwrap();
            if let Some(c) = c.gather(ranks).unwrap() {
                assert_identical(&c, &common::or_and_stored_zero_squared());
            }
        }
        let plan = HaloCsr::new(ranks, &da, &a_rows).unwrap();
        for (x, want) in common::OR_AND_STORED_ZERO_SPMV {
            let x = Dense::try_new(2, 1, x.to_vec()).unwrap();
            let dx = DistDense::scatter(ranks, root.then_some((&x, &a_rows))).unwrap();
            let y = plan.spmv::<OrAnd>(ranks, &dx).unwrap();
            if let Some(y) = y.gather(ranks).unwrap() {
                assert_eq!(y.as_slice(), want, "or-and y = A ⊗ {x:?}");
            }
        }
    }
}

/// Issue 20: a cycle through a −∞ edge is a negative cycle on every rank
/// (the closure converges; only its diagonal tells).
fn apsp_negative_cycle_through_neg_inf(ranks: &Ranks) {
    let g = common::neg_inf_cycle_graph();
    let err = spmx::app::apsp_mpi(ranks, ranks.is_root().then_some(&g)).unwrap_err();
    assert!(err.to_string().contains("negative cycle"), "{err}");
}

/// One rank fails; every rank gets its error, naming it.
fn a_failing_rank_fails_every_rank(ranks: &Ranks) {
    let last = ranks.size() - 1;
    let mine: Result<(), String> = if ranks.rank() == last {
        Err("this rank could not read its input".into())
    } else {
        Ok(())
    };
    match ranks.agree(mine) {
        Err(Error::Rank {
            rank,
            ranks: n,
            message,
        }) => {
            assert_eq!((rank, n), (last, ranks.size()));
            assert_eq!(message, "this rank could not read its input");
        }
        other => panic!("expected rank {last}'s error everywhere, got {other:?}"),
    }
    assert!(ranks.agree(Ok::<_, String>(7)).unwrap() == 7);
}
