//! `spmx bench OPERATION`: our GPU kernels and the vendor library side by
//! side, in one process on one device over the same matrices (the harness
//! is `spmx::bench`). `spmx bench spmv --suite gpu-default` regenerates the
//! standard inputs from `bench-data/gpu-default.suite` and races every
//! requested kernel against cuSPARSE, printing a table as each matrix
//! finishes; `spmx bench spmm --suite gnn` does the same for SpMM, per
//! matrix and width `--k` of B. `--json` and `--plot` write the same
//! results as data and charts. Needs feature `gpu` (on by default) and an
//! NVIDIA GPU.

use super::files::InputOpts;
use super::semiring_arg::SemiringArg;
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    op: BenchOp,
}

#[derive(Subcommand, Debug)]
enum BenchOp {
    /// SpMV, y = A ⊗ x: our kernels against cuSPARSE's cusparseSpMV (CSR).
    Spmv(SpmvBenchArgs),
    /// SpMM, C = A ⊗ B (B dense n × k): our kernels against cuSPARSE's
    /// cusparseSpMM (CSR), per matrix and k.
    Spmm(SpmmBenchArgs),
    /// SpGEMM, C = A ⊗ A (A ⊗ Aᵀ when A is not square): our SpGEMM against
    /// cuSPARSE's cusparseSpGEMM, whole products timed, both checked
    /// against the cpu engine.
    Spgemm(SpgemmBenchArgs),
}

/// The options every `spmx bench` operation takes.
#[derive(Args, Debug)]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
struct CommonBenchArgs {
    /// MatrixMarket files to bench, besides or instead of --suite.
    files: Vec<PathBuf>,
    #[command(flatten)]
    input: InputOpts,
    /// Built-in suites, comma-separated, regenerated from their definitions
    /// in bench-data/ (gpu-default: uniform 4M² and 3M² short rows, R-MAT 22, Poisson 2000²
    /// and 160³, bands of 9, 21 and 61 entries a row, the real set in $SPMX_REAL_DATA or
    /// ../shared/bench-data/real; gnn: R-MAT and power-law graphs;
    /// spgemm: the SpGEMM products; validate: where selection rules are
    /// scored, never tuned, summarized apart).
    #[arg(long, value_delimiter = ',')]
    suite: Vec<String>,
    /// Timed runs per implementation and case (the median counts).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Untimed runs before the timed ones.
    #[arg(long, default_value_t = 10)]
    warmup: u32,
    /// Write every result as JSON here: rewritten after each case (so a run
    /// cut short keeps its cases), with the summary at the end.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write charts here (SVG and PNG): speedup per case, GB/s against
    /// row-length spread.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Value type of the matrices (and of x, B and C).
    #[arg(long = "type", value_enum, default_value = "f32")]
    value_type: ValueType,
    /// Semiring of our kernels (cuSPARSE runs only with plus-times); the
    /// races compare floating-point values, so or-and is not among them.
    #[arg(long, default_value = "plus-times", value_parser = numeric_semiring())]
    semiring: SemiringArg,
    /// Only the matrices whose names contain this (repeatable: any of them).
    #[arg(long)]
    only: Vec<String>,
    /// Time our kernels alone, without cuSPARSE (no ratio column).
    #[arg(long)]
    no_cusparse: bool,
    /// Write each generated input to DIR/NAME.mtx before racing it, so that
    /// cusparse_reference.py can time cuSPARSE through CuPy on the same
    /// matrices (files and the real set are read from where they are).
    #[arg(long, value_name = "DIR")]
    write_inputs: Option<PathBuf>,
}

/// The seed of the dense operand, for the races that have one.
#[derive(Args, Debug)]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
struct SeedArg {
    /// Seed of the random x (spmv) or B (spmm).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

#[derive(Args, Debug)]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
struct SpmvBenchArgs {
    #[command(flatten)]
    common: CommonBenchArgs,
    #[command(flatten)]
    seed: SeedArg,
    /// Our kernels, comma-separated: auto, csr-scalar, csr-vector,
    /// csr-merge, coo, ell, hyb, sell, bsr; or all (each one, to tune auto).
    #[arg(long, value_delimiter = ',', default_value = "auto", value_parser = spmv_kernel_name)]
    kernel: Vec<String>,
}

#[derive(Args, Debug)]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
struct SpmmBenchArgs {
    #[command(flatten)]
    common: CommonBenchArgs,
    #[command(flatten)]
    seed: SeedArg,
    /// Columns of B and C, comma-separated: a case per matrix and k.
    #[arg(long, value_delimiter = ',', default_value = "32,64,128,256",
          value_parser = clap::value_parser!(u32).range(1..))]
    k: Vec<u32>,
    /// Our kernels, comma-separated: auto or any SpMM kernel's name (a
    /// wrong name lists them); or all (each one, to tune auto).
    #[arg(long, value_delimiter = ',', default_value = "auto", value_parser = spmm_kernel_name)]
    kernel: Vec<String>,
    /// How B and C are stored: row-major or col-major.
    #[arg(long, default_value = "row-major", value_parser = layout_name)]
    layout: String,
}

#[derive(Args, Debug)]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
struct SpgemmBenchArgs {
    #[command(flatten)]
    common: CommonBenchArgs,
    /// Also race the built-in 8191² course pair (what `spmx spgemm` with
    /// no files multiplies).
    #[arg(long)]
    course: bool,
    /// Skip products with more than this many multiply-adds (saying so).
    #[arg(long)]
    max_products: Option<u64>,
    /// Time the numeric phase alone: each side plans a product once (ours
    /// `SpgemmPlan`, cuSPARSE's `cusparseSpGEMMreuse`) and only its numeric
    /// phase is timed, as a solver multiplying the same patterns calls it.
    #[arg(long)]
    numeric: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ValueType {
    F32,
    F64,
}

/// `--semiring`: the CLI's semirings over floating-point values (those it
/// computes in `f64`).
fn numeric_semiring() -> impl clap::builder::TypedValueParser<Value = SemiringArg> {
    use clap::builder::TypedValueParser;
    let names = SemiringArg::value_variants()
        .iter()
        .filter(|s| s.on_floats())
        .filter_map(|s| s.to_possible_value());
    clap::builder::PossibleValuesParser::new(names)
        .map(|name: String| SemiringArg::from_str(&name, false).expect("a listed name"))
}

/// `bench spmv --kernel`: an SpMV kernel name or `all`.
fn spmv_kernel_name(s: &str) -> Result<String, String> {
    #[cfg(feature = "gpu")]
    gpu::check_name::<spmx::ops::SpmvKernel>(s, true)?;
    Ok(s.to_string())
}

/// `bench spmm --kernel`: an SpMM kernel name or `all`.
fn spmm_kernel_name(s: &str) -> Result<String, String> {
    #[cfg(feature = "gpu")]
    gpu::check_name::<spmx::ops::SpmmKernel>(s, true)?;
    Ok(s.to_string())
}

/// `bench spmm --layout`: `row-major` or `col-major`.
fn layout_name(s: &str) -> Result<String, String> {
    #[cfg(feature = "gpu")]
    gpu::check_name::<spmx::engine::cuda::spmm::DenseLayout>(s, false)?;
    Ok(s.to_string())
}

pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    match &args.op {
        BenchOp::Spmv(spmv) => gpu::spmv(spmv),
        BenchOp::Spmm(spmm) => gpu::spmm(spmm),
        BenchOp::Spgemm(spgemm) => gpu::spgemm(spgemm),
    }
}

#[cfg(not(feature = "gpu"))]
mod gpu {
    use super::{SpgemmBenchArgs, SpmmBenchArgs, SpmvBenchArgs};

    const NO_GPU: &str = "spmx bench runs on the GPU engine, and this spmx was built without \
                          feature gpu (build with the default features)";

    pub fn spmv(_: &SpmvBenchArgs) -> anyhow::Result<()> {
        anyhow::bail!(NO_GPU)
    }

    pub fn spmm(_: &SpmmBenchArgs) -> anyhow::Result<()> {
        anyhow::bail!(NO_GPU)
    }

    pub fn spgemm(_: &SpgemmBenchArgs) -> anyhow::Result<()> {
        anyhow::bail!(NO_GPU)
    }
}

#[cfg(feature = "gpu")]
mod gpu {
    use super::{CommonBenchArgs, SpgemmBenchArgs, SpmmBenchArgs, SpmvBenchArgs, ValueType};
    use crate::progress;
    use crate::semiring_arg::SemiringArg;
    use anyhow::Context;
    use spmx::format::Csr;
    use spmx::ops::SpmmKernel;
    use spmx::ops::SpmvKernel;
    use spmx::{Scalar, Semiring};
    use spmx_bench::check::BenchValue;
    use spmx_bench::cusparse::CusparseValue;
    use spmx_bench::plot::write_plots;
    use spmx_bench::report::{self, CaseId, Device, MatrixResult, Outcome, Report, Status};
    use spmx_bench::spgemm::{SpgemmBench, SpgemmBenchOptions};
    use spmx_bench::spmm::{SpmmBench, SpmmBenchOptions};
    use spmx_bench::spmv::{SpmvBench, SpmvBenchOptions};
    use spmx_bench::suite::{Input, Source, Suite, real_dir};
    use std::io::Write;
    use std::str::FromStr;
    use std::time::Instant;

    pub fn spmv(args: &SpmvBenchArgs) -> anyhow::Result<()> {
        by_type(args, &inputs(&args.common)?)
    }

    pub fn spmm(args: &SpmmBenchArgs) -> anyhow::Result<()> {
        by_type(args, &inputs(&args.common)?)
    }

    pub fn spgemm(args: &SpgemmBenchArgs) -> anyhow::Result<()> {
        let inputs = if args.course && args.common.suite.is_empty() && args.common.files.is_empty()
        {
            Vec::new()
        } else {
            inputs(&args.common)?
        };
        by_type(args, &inputs)
    }

    /// Fails unless `s` names a `K`, or is `all` where `or_all`.
    pub(super) fn check_name<K: FromStr<Err = String>>(
        s: &str,
        or_all: bool,
    ) -> Result<(), String> {
        if or_all && s == "all" {
            return Ok(());
        }
        match s.parse::<K>() {
            Ok(_) => Ok(()),
            Err(e) if or_all => Err(format!("{e}, or all")),
            Err(e) => Err(e),
        }
    }

    /// The suites' matrices and the files, less those `--only` leaves out.
    fn inputs(args: &CommonBenchArgs) -> anyhow::Result<Vec<Input>> {
        let mut inputs = Vec::new();
        for name in &args.suite {
            let (suite, notes) = Suite::named(name)?.inputs(&real_dir())?;
            for note in notes {
                println!("{note}");
            }
            inputs.extend(suite);
        }
        let options = args.input.read_options();
        inputs.extend(args.files.iter().map(|f| Input::file(f, options)));
        anyhow::ensure!(
            !args.suite.is_empty() || !inputs.is_empty(),
            "nothing to bench: name MatrixMarket files or --suite gpu-default"
        );
        if !args.only.is_empty() {
            inputs.retain(|i| args.only.iter().any(|o| i.name.contains(o.as_str())));
        }
        anyhow::ensure!(!inputs.is_empty(), "--only left no matrix to bench");
        Ok(inputs)
    }

    /// A bench operation, raced in a value type and semiring chosen at run
    /// time.
    trait Race {
        fn common(&self) -> &CommonBenchArgs;
        fn race<S>(&self, inputs: &[Input]) -> anyhow::Result<()>
        where
            S: Semiring,
            S::Value: BenchValue + CusparseValue;
    }

    /// Races `r` in the instance of [`spmx::for_each_semiring!`] that
    /// `--semiring` and `--type` name.
    fn by_type<R: Race>(r: &R, inputs: &[Input]) -> anyhow::Result<()> {
        macro_rules! race_instance {
            ($r:ident, $inputs:ident;
             $($name:ident $sr:ident $atomic:ident [$($t:ident => $S:ty as $test:ident),+];)*) => {{
                let asked = ($r.common().value_type, $r.common().semiring);
                $($( race_instance!(@one $r, $inputs, asked, $name, $t, $S); )+)*
                unreachable!("--semiring takes only semirings on f32 and f64")
            }};
            (@one $r:ident, $inputs:ident, $asked:ident, $name:ident, bool, $S:ty) => {};
            (@one $r:ident, $inputs:ident, $asked:ident, $name:ident, f32, $S:ty) => {
                if $asked == (ValueType::F32, SemiringArg::$name) {
                    return $r.race::<$S>($inputs);
                }
            };
            (@one $r:ident, $inputs:ident, $asked:ident, $name:ident, f64, $S:ty) => {
                if $asked == (ValueType::F64, SemiringArg::$name) {
                    return $r.race::<$S>($inputs);
                }
            };
        }
        spmx::for_each_semiring!(race_instance! { r, inputs; })
    }

    /// `--kernel`: the names in order, `all` expanded to `every`, each once.
    pub(super) fn kernels<K>(names: &[String], every: &[K]) -> Vec<K>
    where
        K: Copy + PartialEq + FromStr<Err = String>,
    {
        let mut kernels = Vec::new();
        for name in names {
            let these = match name.as_str() {
                "all" => every.to_vec(),
                one => vec![one.parse().expect("checked when parsing --kernel")],
            };
            for k in these {
                if !kernels.contains(&k) {
                    kernels.push(k);
                }
            }
        }
        kernels
    }

    impl Race for SpmvBenchArgs {
        fn common(&self) -> &CommonBenchArgs {
            &self.common
        }

        fn race<S>(&self, inputs: &[Input]) -> anyhow::Result<()>
        where
            S: Semiring,
            S::Value: BenchValue + CusparseValue,
        {
            let common = &self.common;
            let options = SpmvBenchOptions {
                kernels: kernels(&self.kernel, &SpmvKernel::ALL),
                reps: common.reps as usize,
                warmup: common.warmup as usize,
                seed: self.seed.seed,
                cusparse: with_cusparse(common),
            };
            let mut bench = SpmvBench::start(options).map_err(start_error)?;
            let seed = Some(self.seed.seed);
            let mut report = new_report::<S>(common, "spmv", None, seed, bench.device());
            print!("{}\n{}", report.header_text(), report::table_header(false));
            for input in inputs {
                let a = load::<S::Value>(common, input)?;
                let m = bench.run::<S>(&input.case_id(), &a, &mut print_progress)?;
                push_case(common, &mut report, m)?;
            }
            report.summarize();
            print!("\n{}", report::summary_text(&report.summary, "matrices"));
            write_outputs(common, &report)
        }
    }

    impl Race for SpmmBenchArgs {
        fn common(&self) -> &CommonBenchArgs {
            &self.common
        }

        fn race<S>(&self, inputs: &[Input]) -> anyhow::Result<()>
        where
            S: Semiring,
            S::Value: BenchValue + CusparseValue,
        {
            let common = &self.common;
            let layout = self.layout.parse().expect("checked when parsing --layout");
            let options = SpmmBenchOptions {
                kernels: kernels(&self.kernel, &SpmmKernel::ALL),
                layout,
                reps: common.reps as usize,
                warmup: common.warmup as usize,
                seed: self.seed.seed,
                cusparse: with_cusparse(common),
            };
            let mut bench = SpmmBench::start(options).map_err(start_error)?;
            let layout = Some(layout.to_string());
            let seed = Some(self.seed.seed);
            let mut report = new_report::<S>(common, "spmm", layout, seed, bench.device());
            print!("{}\n{}", report.header_text(), report::table_header(true));
            for input in inputs {
                let a = load::<S::Value>(common, input)?;
                let id = input.case_id();
                for &k in &self.k {
                    let k = k as usize;
                    eprintln!("{} k={k}:", input.name);
                    let t = Instant::now();
                    let case = bench.run::<S>(&id, &a, k, &mut print_progress);
                    eprintln!("  (case done in {:.1} s)", t.elapsed().as_secs_f64());
                    match case {
                        Ok(case) => push_case(common, &mut report, case)?,
                        Err(spmx::Error::TooLarge(why)) => {
                            println!("skipping {} k={k}: too large: {why}", input.name)
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            report.summarize();
            print!(
                "\n{}{}",
                report::summary_text(&report.summary, "cases"),
                report.fastest_vendor_text()
            );
            write_outputs(common, &report)
        }
    }

    impl Race for SpgemmBenchArgs {
        fn common(&self) -> &CommonBenchArgs {
            &self.common
        }

        fn race<S>(&self, inputs: &[Input]) -> anyhow::Result<()>
        where
            S: Semiring,
            S::Value: BenchValue + CusparseValue,
        {
            let common = &self.common;
            let options = SpgemmBenchOptions {
                reps: common.reps as usize,
                warmup: common.warmup as usize,
                cusparse: with_cusparse(common),
                numeric: self.numeric,
            };
            let mut bench = SpgemmBench::start(options).map_err(start_error)?;
            let op = if self.numeric {
                "spgemm-numeric"
            } else {
                "spgemm"
            };
            let mut report = new_report::<S>(common, op, None, None, bench.device());
            print!("{}\n{}", report.header_text(), report::table_header(true));
            let mut race = |id: CaseId, a: &Csr<S::Value>, b: &Csr<S::Value>| {
                let products = spmx::ops::spgemm_products(a, b) as u64;
                if self.max_products.is_some_and(|m| products > m) {
                    println!(
                        "skipping {}: {products} products, over --max-products",
                        id.name
                    );
                    return anyhow::Ok(());
                }
                let t = Instant::now();
                let case = bench.run::<S>(&id, a, b)?;
                eprintln!("  ({} done in {:.1} s)", id.name, t.elapsed().as_secs_f64());
                push_case(common, &mut report, case)
            };
            if self.course {
                let (a, b) =
                    super::super::spgemm::default_pair(super::super::operands::DEFAULT_SEED)?;
                let id = CaseId {
                    name: "course-8191".into(),
                    source: "the built-in 8191² course pair of `spmx spgemm`".into(),
                    set: "tune".into(),
                };
                race(id, &a.map(S::Value::from_f64), &b.map(S::Value::from_f64))?;
            }
            for input in inputs {
                let a = load::<S::Value>(common, input)?;
                if a.nrows() == a.ncols() {
                    race(input.case_id(), &a, &a)?;
                } else {
                    race(input.case_id(), &a, &a.transpose())?;
                }
            }
            report.summarize();
            print!("\n{}", report::summary_text(&report.summary, "products"));
            write_outputs(common, &report)
        }
    }

    /// Whether to race cuSPARSE: unless --no-cusparse, for plus-times.
    fn with_cusparse(common: &CommonBenchArgs) -> bool {
        !common.no_cusparse && common.semiring == SemiringArg::PlusTimes
    }

    /// A bench that would not start, with a hint where cuSPARSE is missing.
    fn start_error(e: spmx::Error) -> anyhow::Error {
        match e {
            spmx::Error::Unavailable {
                engine: "cuSPARSE", ..
            } => anyhow::anyhow!("{e}; --no-cusparse times our kernels alone"),
            e => e.into(),
        }
    }

    /// An empty report of `operation` over `S` on `device` (`seed`: of the
    /// dense operand, where there is one).
    fn new_report<S>(
        common: &CommonBenchArgs,
        operation: &str,
        layout: Option<String>,
        seed: Option<u64>,
        device: &Device,
    ) -> Report
    where
        S: Semiring,
        S::Value: BenchValue,
    {
        Report {
            operation: operation.into(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
            date: report::utc_now(),
            device: device.clone(),
            value_type: S::Value::NAME.into(),
            semiring: S::NAME.into(),
            reps: common.reps as usize,
            warmup: common.warmup as usize,
            seed,
            layout,
            matrices: Vec::new(),
            summary: Vec::new(),
        }
    }

    /// Generates or reads `input` in `T`, saying what it is on stderr; a
    /// generated one is written under `--write-inputs` first.
    fn load<T: Scalar>(common: &CommonBenchArgs, input: &Input) -> anyhow::Result<Csr<T>> {
        let t = Instant::now();
        let bar = progress::start(format!("loading {}", input.name), None);
        let a = input.load();
        bar.finish_and_clear();
        let a = a.with_context(|| format!("loading {}", input.describe()))?;
        if let (Some(dir), Source::Generated { .. }) = (&common.write_inputs, &input.source) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            let path = dir.join(format!("{}.mtx", input.name));
            spmx::io::write_mtx(&path, &a, spmx::io::Field::Real)?;
            eprintln!("spmx: wrote {}", path.display());
        }
        let a = a.map(T::from_f64);
        eprintln!(
            "{}: {} × {}, {} entries, {} (ready in {:.1} s)",
            input.name,
            a.nrows(),
            a.ncols(),
            a.nnz(),
            input.describe(),
            t.elapsed().as_secs_f64()
        );
        Ok(a)
    }

    /// One line on stderr per implementation as it finishes.
    fn print_progress(o: &Outcome) {
        match (o.status, o.ms) {
            (Status::Ok, Some(t)) => eprintln!("  {:<28} {:.4} ms", o.display_name(), t.median),
            _ => eprintln!("  {:<28} {:?}", o.display_name(), o.status),
        }
    }

    /// Prints a finished case's table lines, adds it to the report, and
    /// rewrites the JSON (when asked for) with every case so far: a run cut
    /// short keeps what it measured.
    fn push_case(
        common: &CommonBenchArgs,
        report: &mut Report,
        case: MatrixResult,
    ) -> anyhow::Result<()> {
        print!("{}", report::matrix_table(&case));
        std::io::stdout().flush()?;
        report.matrices.push(case);
        if let Some(path) = &common.json {
            report.write_json(path)?;
        }
        Ok(())
    }

    /// Writes the JSON and the charts asked for; an error if any result
    /// was wrong.
    fn write_outputs(common: &CommonBenchArgs, report: &Report) -> anyhow::Result<()> {
        if let Some(path) = &common.json {
            report.write_json(path)?;
            eprintln!("spmx: wrote {}", path.display());
        }
        if let Some(dir) = &common.plot {
            for file in write_plots(report, dir)? {
                eprintln!("spmx: wrote {}", file.display());
            }
        }
        anyhow::ensure!(
            !report.any_wrong(),
            "some results were wrong (WRONG above): their times do not count"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cli, Command};
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> Result<SpmvBenchArgs, clap::Error> {
        let cli = Cli::try_parse_from(["spmx", "bench", "spmv"].iter().chain(args))?;
        match cli.command {
            Command::Bench(BenchArgs {
                op: BenchOp::Spmv(spmv),
            }) => Ok(spmv),
            other => panic!("parsed as {other:?}"),
        }
    }

    fn parse_spmm(args: &[&str]) -> Result<SpmmBenchArgs, clap::Error> {
        let cli = Cli::try_parse_from(["spmx", "bench", "spmm"].iter().chain(args))?;
        match cli.command {
            Command::Bench(BenchArgs {
                op: BenchOp::Spmm(spmm),
            }) => Ok(spmm),
            other => panic!("parsed as {other:?}"),
        }
    }

    #[test]
    fn defaults_and_options() {
        let a = parse(&["--suite", "gpu-default"]).unwrap();
        let c = &a.common;
        assert_eq!(c.suite, ["gpu-default"]);
        assert_eq!((c.reps, c.warmup, a.seed.seed), (50, 10, 1));
        assert_eq!(a.kernel, ["auto"]);
        assert_eq!(c.value_type, ValueType::F32);
        assert_eq!(c.semiring, SemiringArg::PlusTimes);
        let a = parse(&[
            "A.mtx",
            "B.mtx",
            "--kernel",
            "all,csr-vector",
            "--type",
            "f64",
            "--only",
            "rmat",
            "--json",
            "r.json",
            "--plot",
            "p",
            "--no-cusparse",
        ])
        .unwrap();
        let c = &a.common;
        assert_eq!(c.files.len(), 2);
        assert_eq!(a.kernel, ["all", "csr-vector"]);
        assert_eq!(c.value_type, ValueType::F64);
        assert!(c.no_cusparse && c.json.is_some() && c.plot.is_some());
        assert!(parse(&["--reps", "0"]).is_err());
    }

    #[test]
    fn spmm_defaults_and_options() {
        let a = parse_spmm(&["--suite", "gpu-default,gnn"]).unwrap();
        assert_eq!(a.common.suite, ["gpu-default", "gnn"]);
        assert_eq!(a.k, [32, 64, 128, 256]);
        assert_eq!(
            (a.kernel.as_slice(), a.layout.as_str()),
            (&["auto".to_string()][..], "row-major")
        );
        assert_eq!((a.common.reps, a.common.warmup, a.seed.seed), (50, 10, 1));
        let a = parse_spmm(&[
            "A.mtx",
            "--k",
            "8,512",
            "--layout",
            "col-major",
            "--kernel",
            "all",
            "--type",
            "f64",
            "--semiring",
            "min-plus",
            "--seed",
            "9",
            "--suite",
            "gnn",
            "--suite",
            "gpu-default",
            "--only",
            "rmat",
            "--json",
            "r.json",
            "--plot",
            "p",
            "--reps",
            "5",
            "--warmup",
            "0",
            "--no-cusparse",
        ])
        .unwrap();
        let c = &a.common;
        assert_eq!(
            (a.k.as_slice(), a.layout.as_str()),
            (&[8, 512][..], "col-major")
        );
        assert_eq!(a.kernel, ["all"]);
        assert_eq!(c.suite, ["gnn", "gpu-default"]);
        assert_eq!(
            (c.value_type, c.semiring),
            (ValueType::F64, SemiringArg::MinPlus)
        );
        assert_eq!((c.reps, c.warmup, a.seed.seed), (5, 0, 9));
        assert!(c.no_cusparse && c.json.is_some() && c.plot.is_some());
        assert_eq!((c.files.len(), c.only.len()), (1, 1));
        assert!(parse_spmm(&["--k", "0"]).is_err());
        assert!(parse_spmm(&["--k", "32,x"]).is_err());
    }

    #[test]
    fn spgemm_takes_json_and_plot_but_no_seed_or_or_and() {
        let parse_spgemm = |args: &[&str]| {
            Cli::try_parse_from(["spmx", "bench", "spgemm"].iter().chain(args)).map(|cli| match cli
                .command
            {
                Command::Bench(BenchArgs {
                    op: BenchOp::Spgemm(spgemm),
                }) => spgemm,
                other => panic!("parsed as {other:?}"),
            })
        };
        let a = parse_spgemm(&[
            "--suite",
            "spgemm,validate",
            "--json",
            "r.json",
            "--plot",
            "p",
            "--write-inputs",
            "in",
            "--max-products",
            "2000000000",
        ])
        .unwrap();
        assert_eq!(a.common.suite, ["spgemm", "validate"]);
        assert!(a.common.json.is_some() && a.common.plot.is_some());
        assert_eq!(a.max_products, Some(2_000_000_000));
        assert!(parse_spgemm(&["--seed", "3"]).is_err(), "no dense operand");
        assert!(parse_spgemm(&["--semiring", "or-and"]).is_err());
        assert!(parse_spgemm(&["--semiring", "min-plus"]).is_ok());
    }

    #[cfg(feature = "gpu")]
    #[test]
    fn kernel_names_are_checked_and_all_expands_once() {
        use spmx::ops::SpmvKernel;
        let err = parse(&["--kernel", "csr-fast"]).unwrap_err().to_string();
        assert!(
            err.contains("csr-vector") && err.contains("or all"),
            "{err}"
        );
        let a = parse(&["--kernel", "csr-merge,all,auto"]).unwrap();
        let kernels = gpu::kernels(&a.kernel, &SpmvKernel::ALL);
        assert_eq!(kernels.len(), SpmvKernel::ALL.len());
        assert_eq!(kernels[0], SpmvKernel::CsrMerge);
    }

    #[cfg(feature = "gpu")]
    #[test]
    fn spmm_kernel_and_layout_names_are_checked() {
        use spmx::ops::SpmmKernel;
        let err = parse_spmm(&["--kernel", "csr-vector"])
            .unwrap_err()
            .to_string();
        assert!(err.contains("auto") && err.contains("or all"), "{err}");
        let err = parse_spmm(&["--layout", "diagonal"])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("row-major") && !err.contains("or all"),
            "{err}"
        );
        let a = parse_spmm(&["--kernel", "auto,all"]).unwrap();
        assert_eq!(gpu::kernels(&a.kernel, &SpmmKernel::ALL), SpmmKernel::ALL);
    }
}
