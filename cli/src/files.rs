//! Reading and writing matrix files for any subcommand: the reading options
//! (`--index-base`, `--drop-invalid`), `-` for standard input and output, a
//! progress bar over the file's bytes, outputs checked before the work
//! starts, and a warning, with counts, for anything the file did not hold
//! as read: entries `--drop-invalid` skipped, values out of `f64`'s range,
//! bytes after the gzip data, duplicate entries summed. File names are
//! printed with their control characters escaped.

use anyhow::Context;
use clap::Args;
use spmx::io::{self, Field, IndexBase, MtxMatrix, ReadOptions};
use spmx::{Csr, Scalar};
use std::fs::File;
use std::path::Path;

/// Options for every command that reads a matrix, flattened into each
/// such command's arguments (so that `spmx gen --help` does not offer
/// them). The default is the strict standard reader.
#[derive(Args, Debug, Default)]
pub struct InputOpts {
    /// Index base of the entries in coordinate files: 1 (the MatrixMarket
    /// standard) or 0 (files written by some generators).
    #[arg(long, default_value = "1", value_parser = super::parse_index_base)]
    pub index_base: IndexBase,
    /// Skip entries whose row or column is out of range (negative ones
    /// included) instead of failing; the number skipped is reported.
    #[arg(long)]
    pub drop_invalid: bool,
}

impl InputOpts {
    /// The library's reading options these stand for.
    pub fn read_options(&self) -> ReadOptions {
        ReadOptions {
            index_base: self.index_base,
            drop_invalid: self.drop_invalid,
        }
    }
}

/// Reads a MatrixMarket file (gzip or plain; `-`: standard input) as `T`
/// values (an integer type reads integers exactly, and refuses what it
/// cannot hold), warning about what the file did not hold as read (see
/// the module docs).
pub fn read<T: Scalar>(path: &Path, opts: &InputOpts) -> anyhow::Result<MtxMatrix<T>> {
    let name = display(path);
    let result = if is_std_stream(path) {
        let bar = super::progress::start("reading standard input", None);
        let result = io::read_mtx_from(
            bar.wrap_read(std::io::stdin().lock()),
            "standard input",
            &opts.read_options(),
        );
        bar.finish_and_clear();
        result
    } else {
        let file = File::open(path).with_context(|| format!("cannot open {name}"))?;
        let len = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len());
        let bar = super::progress::start(format!("reading {name}"), len);
        let reader = bar.wrap_read(file);
        let result = match len {
            Some(len) => io::read_mtx_sized(reader, len, &name, &opts.read_options()),
            None => io::read_mtx_from(reader, &name, &opts.read_options()),
        };
        bar.finish_and_clear();
        result
    };
    let matrix = result?;
    warn_read::<T>(&name, matrix.dropped, &matrix.notes);
    Ok(matrix)
}

/// Warns what reading `name` as `T` values met that the matrix does not
/// show: entries dropped, values out of range, bytes after gzip data.
pub fn warn_read<T>(name: &str, dropped: usize, notes: &io::ReadNotes) {
    if dropped > 0 {
        eprintln!(
            "spmx: --drop-invalid: dropped {} from {name}",
            count(dropped, "out-of-range entry", "out-of-range entries"),
        );
    }
    for (n, what) in [
        (
            notes.overflowed,
            format!(
                "{} too large for {} read as ±inf",
                count(notes.overflowed, "value", "values"),
                std::any::type_name::<T>()
            ),
        ),
        (
            notes.underflowed,
            format!(
                "{} too small for {} read as 0",
                count(notes.underflowed, "nonzero value", "nonzero values"),
                std::any::type_name::<T>()
            ),
        ),
        (
            notes.ignored_trailing_bytes as usize,
            format!(
                "ignored {} after the gzip data (trailing garbage, as gzip(1) ignores it)",
                count(notes.ignored_trailing_bytes as usize, "byte", "bytes")
            ),
        ),
    ] {
        if n > 0 {
            warn(name, &what);
        }
    }
}

/// Reads a MatrixMarket file as CSR, warning about what the file did not
/// hold as read, duplicate entries summed included.
pub fn read_csr<T: Scalar>(path: &Path, opts: &InputOpts) -> anyhow::Result<Csr<T>> {
    summed_csr(&read(path, opts)?, path)
}

/// `m` (read from `path`) as CSR, its duplicate entries summed; the error
/// when it does not fit in memory names the file.
pub fn csr<T: Scalar>(m: &MtxMatrix<T>, path: &Path) -> anyhow::Result<Csr<T>> {
    m.coo
        .try_to_csr()
        .with_context(|| format!("{}: cannot hold the matrix as CSR", display(path)))
}

/// Whether `path` is `-`, standard input or output.
pub fn is_std_stream(path: &Path) -> bool {
    path == Path::new("-")
}

/// `path` as messages print it: control characters escaped, `-` as
/// "standard input/output".
pub fn display(path: &Path) -> String {
    io::printable(&path.display().to_string()).into_owned()
}

/// Fails now, before any work, where writing `path` later would fail: its
/// directory missing or not writable, or `path` a directory (`-` is
/// always fine).
pub fn check_output(path: &Path) -> anyhow::Result<()> {
    Ok(io::check_output(path)?)
}

/// [`csr`], warning how many duplicate entries were summed.
pub fn summed_csr<T: Scalar>(m: &MtxMatrix<T>, path: &Path) -> anyhow::Result<Csr<T>> {
    let a = csr(m, path)?;
    warn_summed(&display(path), m.coo.nnz() - a.nnz());
    Ok(a)
}

/// Warns that `summed` duplicate entries of `name` were summed, if any.
pub fn warn_summed(name: &str, summed: usize) {
    if summed > 0 {
        warn(
            name,
            &format!(
                "summed {} (at the same row and column)",
                count(summed, "duplicate entry", "duplicate entries")
            ),
        );
    }
}

/// `spmx: warning: file: what`, on stderr.
fn warn(name: &str, what: &str) {
    eprintln!("spmx: warning: {name}: {what}");
}

/// `n thing` or `n things`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Writes `m` as MatrixMarket general coordinate with the given field
/// (gzip for a `.gz` name, standard output for `-`); the library writes a
/// temporary file and renames it, so a failure leaves any previous `path`
/// intact.
pub fn write<T: spmx::Scalar>(path: &Path, m: &Csr<T>, field: Field) -> anyhow::Result<()> {
    let bar = super::progress::start(format!("writing {}", display(path)), None);
    let result = io::write_mtx(path, m, field);
    bar.finish_and_clear();
    Ok(result?)
}
