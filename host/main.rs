//! The `spmx` command line: read, inspect, convert and generate matrices
//! (and, as the engines land, multiply them). Each subcommand lives in
//! `host/cli/`; errors print with their full context and exit non-zero.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("spmx: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
