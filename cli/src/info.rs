//! `spmx info FILE`: what a matrix is — shape, entries (in the file and
//! after symmetric expansion), field and symmetry, explicit zeros,
//! row-length statistics, and the bytes each format would take with `f64`
//! values and `u32` indices.

use super::files::{self, InputOpts};
use anyhow::Context;
use spmx::Csr;
use spmx::format::{Bsr, Csc, Hyb, Sell};
use std::path::Path;

pub fn run(path: &Path, input: &InputOpts) -> anyhow::Result<()> {
    let read = files::read::<f64>(path, input)?;
    let h = read.header;
    let expanded = read.coo.nnz();
    // Everything is computed before anything prints: a matrix too large
    // for a format gives the error alone, not half a report.
    let a = files::csr(&read, path)?;
    let formats = format_bytes(&a)
        .with_context(|| format!("{}: cannot size every format", files::display(path)))?;
    let stats = a.row_stats();
    println!("file            {}", files::display(path));
    println!("shape           {} × {}", a.nrows(), a.ncols());
    println!("format          {} {} {}", h.layout, h.field, h.symmetry);
    println!("entries         {} in the file", h.declared_entries);
    if expanded != h.declared_entries {
        println!("                {expanded} after {} expansion", h.symmetry);
    }
    if a.nnz() != expanded {
        println!(
            "                {} after summing {} duplicates",
            a.nnz(),
            expanded - a.nnz()
        );
    }
    let zeros = a.values().iter().filter(|&&v| v == 0.0).count();
    println!("explicit zeros  {zeros}");
    println!(
        "row lengths     min {} / mean {:.2} / max {}, {} empty rows",
        stats.min, stats.mean, stats.max, stats.empty_rows
    );
    println!("bytes per format (f64 values, u32 indices):");
    for (name, bytes) in formats {
        println!("  {name:<16}{bytes:>14}");
    }
    Ok(())
}

/// Storage of `a` in each format, each built and dropped in turn. ELL is
/// computed, not built: one long row can make it far larger than memory
/// (`arrow` would need 26 GB), and its size can pass `usize`.
fn format_bytes(a: &Csr<f64>) -> spmx::Result<Vec<(String, u128)>> {
    let bytes = |n: usize| n as u128;
    let coo_entry = 2 * size_of::<u32>() + size_of::<f64>();
    let ell_entry = size_of::<u32>() + size_of::<f64>();
    let ell_width = a.row_stats().max;
    let hyb = Hyb::try_from_csr(a)?;
    let hyb = (format!("HYB (width {})", hyb.width()), hyb.storage_bytes());
    let sell = Sell::from_csr(a, 32, 256)?.storage_bytes();
    let bsr = Bsr::from_csr(a, 4)?;
    let bsr = (
        format!("BSR 4×4 ({} blk)", bsr.nblocks()),
        bsr.storage_bytes(),
    );
    Ok(vec![
        ("COO".into(), bytes(a.nnz()) * bytes(coo_entry)),
        ("CSR".into(), bytes(a.storage_bytes())),
        ("CSC".into(), bytes(Csc::try_from_csr(a)?.storage_bytes())),
        (
            format!("ELL (width {ell_width})"),
            bytes(a.nrows()) * bytes(ell_width) * bytes(ell_entry),
        ),
        (hyb.0, bytes(hyb.1)),
        ("SELL-32-256".into(), bytes(sell)),
        (bsr.0, bytes(bsr.1)),
    ])
}
