//! The summary the multiplying commands (`spgemm`, `spmv`, `spmm`) print:
//! a title line, then one aligned `label  value` line per fact — semiring,
//! engine, shapes, times, rate — in the order the command adds them.

use super::engine_arg::EngineOpts;
use super::semiring_arg::SemiringArg;
use clap::ValueEnum;
use spmx::Engine;
use std::time::Duration;

/// Lines of a summary, printed by [`Summary::print`].
pub struct Summary {
    title: String,
    lines: Vec<(&'static str, String)>,
}

impl Summary {
    /// `op: source`, then the semiring and the engine that ran.
    pub fn new(op: &str, source: &str, semiring: SemiringArg, engine: Engine) -> Self {
        let semiring = semiring
            .to_possible_value()
            .map_or_else(|| format!("{semiring:?}"), |v| v.get_name().to_string());
        Summary {
            title: format!("{op}: {source}"),
            lines: vec![
                ("semiring", semiring),
                ("engine", EngineOpts::describe(engine)),
            ],
        }
    }

    pub fn line(&mut self, label: &'static str, value: impl Into<String>) -> &mut Self {
        self.lines.push((label, value.into()));
        self
    }

    /// `label  m × n, nnz entries`.
    pub fn shape(&mut self, label: &'static str, (m, n): (usize, usize), nnz: usize) -> &mut Self {
        self.line(label, format!("{m} × {n}, {nnz} entries"))
    }

    /// `label  0.123 s`.
    pub fn time(&mut self, label: &'static str, t: Duration) -> &mut Self {
        self.line(label, format!("{:.3} s", t.as_secs_f64()))
    }

    /// `rate  G GFLOP/s` for `flops` in `t`.
    pub fn gflops(&mut self, flops: usize, t: Duration) -> &mut Self {
        self.line("rate", format!("{:.2} GFLOP/s", per_second(flops, t) / 1e9))
    }

    /// `rate  G GB/s` for `bytes` moved in `t`.
    pub fn gbytes(&mut self, bytes: usize, t: Duration, how: &str) -> &mut Self {
        let rate = per_second(bytes, t) / 1e9;
        self.line("rate", format!("{rate:.2} GB/s ({bytes} bytes: {how})"))
    }

    pub fn print(&self) {
        println!("{}", self.title);
        for (label, value) in &self.lines {
            println!("  {label:<12}{value}");
        }
    }
}

fn per_second(amount: usize, t: Duration) -> f64 {
    amount as f64 / t.as_secs_f64().max(1e-9)
}
