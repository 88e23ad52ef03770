//! Reading and writing matrix files for any subcommand: the global reading options
//! (`--index-base`, `--drop-invalid`), a progress bar over the file's bytes,
//! and a report of anything `--drop-invalid` skipped.

use anyhow::Context;
use clap::Args;
use spmx::Csr;
use spmx::io::{self, Field, IndexBase, MtxMatrix, ReadOptions};
use std::fs::File;
use std::path::Path;

/// Options for every command that reads a matrix.
#[derive(Args, Debug)]
pub struct InputOpts {
    /// Index base of the entries in coordinate files: 1 (the MatrixMarket
    /// standard) or 0 (files written by some generators).
    #[arg(long, global = true, default_value = "1", value_parser = super::parse_index_base)]
    pub index_base: IndexBase,
    /// Skip entries whose row or column is out of range instead of failing;
    /// the number skipped is reported.
    #[arg(long, global = true)]
    pub drop_invalid: bool,
}

/// Reads a MatrixMarket file (gzip or plain) as `f64` values.
pub fn read(path: &Path, opts: &InputOpts) -> anyhow::Result<MtxMatrix<f64>> {
    let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let total = file.metadata().map(|m| m.len()).ok();
    let bar = super::progress::start(format!("reading {}", path.display()), total);
    let read_opts = ReadOptions {
        index_base: opts.index_base,
        drop_invalid: opts.drop_invalid,
    };
    let result = io::read_mtx_from(bar.wrap_read(file), &path.display().to_string(), &read_opts);
    bar.finish_and_clear();
    let matrix = result?;
    if matrix.dropped > 0 {
        eprintln!(
            "spmx: --drop-invalid: dropped {} out-of-range entr{} from {}",
            matrix.dropped,
            if matrix.dropped == 1 { "y" } else { "ies" },
            path.display()
        );
    }
    Ok(matrix)
}

/// Writes `m` as MatrixMarket general coordinate with the given field; the
/// library writes a temporary file and renames it, so a failure leaves any
/// previous `path` intact.
pub fn write(path: &Path, m: &Csr<f64>, field: Field) -> anyhow::Result<()> {
    let bar = super::progress::start(format!("writing {}", path.display()), None);
    let result = io::write_mtx(path, m, field);
    bar.finish_and_clear();
    Ok(result?)
}
