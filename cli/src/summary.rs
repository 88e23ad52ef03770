//! The summary the computing commands (`spgemm`, `spmv`, `spmm`, `apsp`,
//! `sssp`) report: a title line, then one aligned `label  value` line per
//! fact — semiring, engine, shapes, times, rate — in the order the command
//! adds them. It goes to standard error, so that standard output carries
//! only results (`-o -`); `--quiet` leaves it out and `--json FILE` writes
//! it as JSON too.

use super::engine_arg::EngineOpts;
use super::semiring_arg::Instance;
use anyhow::Context;
use clap::Args;
use spmx::Engine;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Where the summary goes: `--quiet`, `--json FILE`.
#[derive(Args, Debug, Default)]
pub struct ReportOpts {
    /// Print no summary (errors and warnings still go to standard error).
    #[arg(short, long)]
    pub quiet: bool,
    /// Also write the summary as JSON to FILE (`-`: standard output):
    /// `{"title": …, "lines": [[label, value], …]}`.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

impl ReportOpts {
    /// Fails now, before any work, where `--json`'s file could not be
    /// written later (see [`super::files::check_output`]).
    pub fn check(&self) -> anyhow::Result<()> {
        match &self.json {
            Some(path) => super::files::check_output(path),
            None => Ok(()),
        }
    }
}

/// Lines of a summary, printed by [`Summary::print`].
pub struct Summary {
    title: String,
    lines: Vec<(&'static str, String)>,
}

impl Summary {
    /// `op: source`, then the semiring (with its value type where that
    /// is not its default, [`Instance::describe`]) and the engine that ran.
    pub fn new(op: &str, source: &str, semiring: Instance, engine: Engine) -> Self {
        let semiring = semiring.describe();
        Summary {
            title: format!("{op}: {}", spmx::io::printable(source)),
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

    /// `label  0.123456 s`: to the microsecond, which sub-millisecond
    /// work needs.
    pub fn time(&mut self, label: &'static str, t: Duration) -> &mut Self {
        self.line(label, format!("{:.6} s", t.as_secs_f64()))
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

    /// The summary on standard error (unless `--quiet`), and as JSON where
    /// `--json` says.
    pub fn report(&self, opts: &ReportOpts) -> anyhow::Result<()> {
        if !opts.quiet {
            eprint!("{}", self.text());
        }
        if let Some(path) = &opts.json {
            write_json(path, &self.json())?;
        }
        Ok(())
    }

    /// The aligned text: the title, then a line per fact.
    pub fn text(&self) -> String {
        let mut text = format!("{}\n", self.title);
        for (label, value) in &self.lines {
            text.push_str(&format!("  {label:<12}{value}\n"));
        }
        text
    }

    fn json(&self) -> String {
        let lines: Vec<String> = self
            .lines
            .iter()
            .map(|(label, value)| format!("[{}, {}]", json_string(label), json_string(value)))
            .collect();
        format!(
            "{{\"title\": {}, \"lines\": [{}]}}\n",
            json_string(&self.title),
            lines.join(", ")
        )
    }
}

/// `text` as a JSON string literal.
fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes `json` to `path` (`-`: standard output).
fn write_json(path: &Path, json: &str) -> anyhow::Result<()> {
    if path == Path::new("-") {
        std::io::stdout().write_all(json.as_bytes())?;
        return Ok(());
    }
    std::fs::write(path, json).with_context(|| {
        format!(
            "cannot write the JSON summary to {}",
            spmx::io::printable(&path.display().to_string())
        )
    })
}

fn per_second(amount: usize, t: Duration) -> f64 {
    amount as f64 / t.as_secs_f64().max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semiring_arg::SemiringArg;

    #[test]
    fn json_escapes_quotes_backslashes_and_controls() {
        assert_eq!(json_string("a\"b\\c\u{1b}"), "\"a\\\"b\\\\c\\u001b\"");
        let plus_times = Instance::default_for(SemiringArg::PlusTimes);
        let mut s = Summary::new("spgemm", "x", plus_times, Engine::Cpu);
        s.line("C", "1 × 1, 1 entries");
        let json = s.json();
        assert!(
            json.starts_with("{\"title\": \"spgemm: x\", \"lines\": [[\"semiring\""),
            "{json}"
        );
        assert!(
            json.ends_with("[\"C\", \"1 × 1, 1 entries\"]]}\n"),
            "{json}"
        );
    }
}
