//! `spmx convert IN OUT --format F`: reads IN, converts it to format F and
//! back to CSR, and writes OUT as MatrixMarket general coordinate with IN's
//! field (gzip for a `.gz` name). Every stored entry survives bit for bit,
//! explicit zeros, −0 and NaN included: this is how a user checks that a
//! format's conversion is exact on their matrix.

use super::files::{self, InputOpts};
use anyhow::Context;
use clap::{Args, ValueEnum};
use spmx::Csr;
use spmx::format::{Bsr, Csc, Ell, Hyb, Sell};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Csr,
    Coo,
    Csc,
    Ell,
    Hyb,
    Sell,
    Bsr,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Input MatrixMarket file (.mtx or .mtx.gz; `-`: standard input).
    input: PathBuf,
    /// Output MatrixMarket file (`-`: standard output).
    output: PathBuf,
    /// Format to convert through.
    #[arg(long, value_enum, default_value = "csr")]
    format: FormatArg,
    /// SELL slice height C.
    #[arg(long, default_value_t = 32)]
    slice_height: usize,
    /// SELL sorting window σ (a multiple of C).
    #[arg(long, default_value_t = 256)]
    sigma: usize,
    /// BSR block size b (b × b blocks, 1 to 8).
    #[arg(long, default_value_t = 4)]
    block_size: usize,
    #[command(flatten)]
    input_opts: InputOpts,
}

/// `a` converted to `format` and back (CSR: `a` itself).
pub fn round_trip(a: &Csr<f64>, args: &ConvertArgs) -> spmx::Result<Option<Csr<f64>>> {
    Ok(Some(match args.format {
        FormatArg::Csr => return Ok(None),
        FormatArg::Coo => a.try_to_coo()?.try_to_csr()?,
        FormatArg::Csc => Csc::try_from_csr(a)?.try_into_csr()?,
        FormatArg::Ell => Ell::from_csr(a)?.try_to_csr()?,
        FormatArg::Hyb => Hyb::try_from_csr(a)?.try_to_csr()?,
        FormatArg::Sell => Sell::from_csr(a, args.slice_height, args.sigma)?.try_to_csr()?,
        FormatArg::Bsr => Bsr::from_csr(a, args.block_size)?.try_to_csr()?,
    }))
}

pub fn run(args: &ConvertArgs) -> anyhow::Result<()> {
    files::check_output(&args.output)?;
    let read = files::read::<f64>(&args.input, &args.input_opts)?;
    let a = files::summed_csr(&read, &args.input)?;
    let converted = round_trip(&a, args).with_context(|| {
        format!(
            "{}: cannot convert the matrix through {:?}",
            files::display(&args.input),
            args.format
        )
    })?;
    if let Some(converted) = &converted {
        anyhow::ensure!(
            converted.identical(&a),
            "internal error: the {:?} round trip changed the matrix",
            args.format
        );
    }
    files::write(
        &args.output,
        converted.as_ref().unwrap_or(&a),
        read.header.field,
    )?;
    Ok(())
}
