//! `spmx bench OPERATION`: our GPU kernels and the vendor library side by
//! side, in one process on one device over the same matrices (the harness
//! is `spmx::bench`). `spmx bench spmv --suite gpu-default` regenerates the
//! standard inputs from `bench-data/gpu-default.suite` and races every
//! requested kernel against cuSPARSE, printing a table as each matrix
//! finishes; `--json` and `--plot` write the same results as data and
//! charts. Needs feature `gpu` (on by default) and an NVIDIA GPU.

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
}

#[derive(Args, Debug)]
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
struct SpmvBenchArgs {
    /// MatrixMarket files to bench, besides or instead of --suite.
    files: Vec<PathBuf>,
    /// A built-in suite, regenerated from its definition in bench-data/
    /// (gpu-default: uniform 4M², R-MAT 22, Poisson 2000² and 160³, the
    /// real set in $SPMX_REAL_DATA or ../shared/bench-data/real).
    #[arg(long)]
    suite: Option<String>,
    /// Our kernels, comma-separated: auto, csr-scalar, csr-vector,
    /// csr-merge, coo, ell, hyb, sell, bsr; or all (each one, to tune auto).
    #[arg(long, value_delimiter = ',', default_value = "auto", value_parser = kernel_name)]
    kernel: Vec<String>,
    /// Timed runs per implementation and matrix (the median counts).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u32).range(1..))]
    reps: u32,
    /// Untimed runs before the timed ones.
    #[arg(long, default_value_t = 10)]
    warmup: u32,
    /// Write every result as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write charts here (SVG and PNG): speedup per matrix, GB/s against
    /// row-length spread.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Value type of A, x and y.
    #[arg(long = "type", value_enum, default_value = "f32")]
    value_type: ValueType,
    /// Semiring of our kernels (cuSPARSE runs only with plus-times).
    #[arg(long, value_enum, default_value = "plus-times")]
    semiring: SemiringArg,
    /// Only the matrices whose names contain this (repeatable: any of them).
    #[arg(long)]
    only: Vec<String>,
    /// Seed of the random x.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Time our kernels alone, without cuSPARSE (no ratio column).
    #[arg(long)]
    no_cusparse: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ValueType {
    F32,
    F64,
}

/// `--kernel`: a kernel name or `all`, checked against the GPU engine's
/// kernels where it is built.
fn kernel_name(s: &str) -> Result<String, String> {
    #[cfg(feature = "gpu")]
    if s != "all" {
        s.parse::<spmx::engine::cuda::SpmvKernel>()
            .map_err(|e| format!("{e}, or all"))?;
    }
    Ok(s.to_string())
}

pub fn run(args: &BenchArgs, input: &InputOpts) -> anyhow::Result<()> {
    match &args.op {
        BenchOp::Spmv(spmv) => gpu::spmv(spmv, input),
    }
}

#[cfg(not(feature = "gpu"))]
mod gpu {
    use super::{InputOpts, SpmvBenchArgs};

    pub fn spmv(_: &SpmvBenchArgs, _: &InputOpts) -> anyhow::Result<()> {
        anyhow::bail!(
            "spmx bench runs on the GPU engine, and this spmx was built without feature gpu \
             (build with the default features)"
        )
    }
}

#[cfg(feature = "gpu")]
mod gpu {
    use super::{InputOpts, SpmvBenchArgs, ValueType};
    use crate::cli::progress;
    use crate::cli::semiring_arg::SemiringArg;
    use anyhow::Context;
    use spmx::bench::check::BenchValue;
    use spmx::bench::plot::write_plots;
    use spmx::bench::report::{self, Report, Status};
    use spmx::bench::spmv::{SpmvBench, SpmvBenchOptions};
    use spmx::bench::suite::{Input, Suite, real_dir};
    use spmx::engine::cuda::SpmvKernel;
    use spmx::engine::cuda::cusparse::CusparseValue;
    use spmx::io::ReadOptions;
    use spmx::semiring::Float;
    use spmx::{MaxPlus, MaxTimes, MinMax, MinPlus, PlusTimes, Scalar, Semiring};
    use std::io::Write;
    use std::time::Instant;

    pub fn spmv(args: &SpmvBenchArgs, input: &InputOpts) -> anyhow::Result<()> {
        let inputs = inputs(args, input)?;
        match args.value_type {
            ValueType::F32 => by_semiring::<f32>(args, &inputs),
            ValueType::F64 => by_semiring::<f64>(args, &inputs),
        }
    }

    /// The suite's matrices and the files, less those `--only` leaves out.
    fn inputs(args: &SpmvBenchArgs, input: &InputOpts) -> anyhow::Result<Vec<Input>> {
        let mut inputs = Vec::new();
        if let Some(name) = &args.suite {
            let (suite, notes) = Suite::named(name)?.inputs(&real_dir())?;
            for note in notes {
                println!("{note}");
            }
            inputs.extend(suite);
        }
        let options = ReadOptions {
            index_base: input.index_base,
            drop_invalid: input.drop_invalid,
        };
        inputs.extend(args.files.iter().map(|f| Input::file(f, options)));
        anyhow::ensure!(
            args.suite.is_some() || !inputs.is_empty(),
            "nothing to bench: name MatrixMarket files or --suite gpu-default"
        );
        if !args.only.is_empty() {
            inputs.retain(|i| args.only.iter().any(|o| i.name.contains(o.as_str())));
        }
        anyhow::ensure!(!inputs.is_empty(), "--only left no matrix to bench");
        Ok(inputs)
    }

    fn by_semiring<T>(args: &SpmvBenchArgs, inputs: &[Input]) -> anyhow::Result<()>
    where
        T: BenchValue + CusparseValue + Float,
    {
        match args.semiring {
            SemiringArg::PlusTimes => race::<PlusTimes<T>>(args, inputs),
            SemiringArg::MinPlus => race::<MinPlus<T>>(args, inputs),
            SemiringArg::MaxPlus => race::<MaxPlus<T>>(args, inputs),
            SemiringArg::MaxTimes => race::<MaxTimes<T>>(args, inputs),
            SemiringArg::MinMax => race::<MinMax<T>>(args, inputs),
            SemiringArg::OrAnd => {
                anyhow::bail!(
                    "--semiring or-and has boolean values; bench it with f32 or f64 semirings"
                )
            }
        }
    }

    /// `--kernel`: the names in order, `all` expanded, each once.
    pub(super) fn kernels(names: &[String]) -> Vec<SpmvKernel> {
        let mut kernels = Vec::new();
        for name in names {
            let these = match name.as_str() {
                "all" => SpmvKernel::ALL.to_vec(),
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

    fn race<S>(args: &SpmvBenchArgs, inputs: &[Input]) -> anyhow::Result<()>
    where
        S: Semiring,
        S::Value: BenchValue + CusparseValue,
    {
        let cusparse = !args.no_cusparse && args.semiring == SemiringArg::PlusTimes;
        let options = SpmvBenchOptions {
            kernels: kernels(&args.kernel),
            reps: args.reps as usize,
            warmup: args.warmup as usize,
            seed: args.seed,
            cusparse,
        };
        let mut bench = SpmvBench::start(options).map_err(|e| match e {
            spmx::Error::Unavailable {
                engine: "cuSPARSE", ..
            } => anyhow::anyhow!("{e}; --no-cusparse times our kernels alone"),
            e => e.into(),
        })?;
        let mut report = Report {
            operation: "spmv".into(),
            command: std::env::args().collect::<Vec<_>>().join(" "),
            date: report::utc_now(),
            device: bench.device().clone(),
            value_type: S::Value::NAME.into(),
            semiring: S::NAME.into(),
            reps: args.reps as usize,
            warmup: args.warmup as usize,
            seed: args.seed,
            matrices: Vec::new(),
            summary: Vec::new(),
        };
        print!("{}\n{}", report.header_text(), report::table_header());
        for input in inputs {
            let t = Instant::now();
            let bar = progress::start(format!("loading {}", input.name), None);
            let a = input.load();
            bar.finish_and_clear();
            let a = a
                .with_context(|| format!("loading {}", input.describe()))?
                .map(S::Value::from_f64);
            eprintln!(
                "{}: {} × {}, {} entries, {} (ready in {:.1} s)",
                input.name,
                a.nrows(),
                a.ncols(),
                a.nnz(),
                input.describe(),
                t.elapsed().as_secs_f64()
            );
            let m = bench.run::<S>(&input.name, input.describe(), &a, &mut |o| match (
                o.status, o.ms,
            ) {
                (Status::Ok, Some(t)) => eprintln!("  {:<28} {:.4} ms", o.display_name(), t.median),
                _ => eprintln!("  {:<28} {:?}", o.display_name(), o.status),
            })?;
            print!("{}", report::matrix_table(&m));
            std::io::stdout().flush()?;
            report.matrices.push(m);
        }
        report.summarize();
        print!("\n{}", report::summary_text(&report.summary));
        if let Some(path) = &args.json {
            report.write_json(path)?;
            eprintln!("spmx: wrote {}", path.display());
        }
        if let Some(dir) = &args.plot {
            for file in write_plots(&report, dir)? {
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

    #[test]
    fn defaults_and_options() {
        let a = parse(&["--suite", "gpu-default"]).unwrap();
        assert_eq!(a.suite.as_deref(), Some("gpu-default"));
        assert_eq!((a.reps, a.warmup, a.seed), (50, 10, 1));
        assert_eq!(a.kernel, ["auto"]);
        assert_eq!(a.value_type, ValueType::F32);
        assert_eq!(a.semiring, SemiringArg::PlusTimes);
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
        assert_eq!(a.files.len(), 2);
        assert_eq!(a.kernel, ["all", "csr-vector"]);
        assert_eq!(a.value_type, ValueType::F64);
        assert!(a.no_cusparse && a.json.is_some() && a.plot.is_some());
        assert!(parse(&["--reps", "0"]).is_err());
    }

    #[cfg(feature = "gpu")]
    #[test]
    fn kernel_names_are_checked_and_all_expands_once() {
        let err = parse(&["--kernel", "csr-fast"]).unwrap_err().to_string();
        assert!(
            err.contains("csr-vector") && err.contains("or all"),
            "{err}"
        );
        let a = parse(&["--kernel", "csr-merge,all,auto"]).unwrap();
        let kernels = gpu::kernels(&a.kernel);
        assert_eq!(kernels.len(), spmx::engine::cuda::SpmvKernel::ALL.len());
        assert_eq!(kernels[0], spmx::engine::cuda::SpmvKernel::CsrMerge);
    }
}
