//! The `spmx` command line: read, inspect, convert, generate, multiply and
//! benchmark matrices. Each subcommand lives in `host/cli/`; errors print
//! with their full context and exit non-zero.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    restore_sigpipe();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("spmx: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Rust ignores SIGPIPE, so `spmx info A.mtx | head` would panic on its
/// next print once `head` exits. A command-line tool should just stop, as
/// `cat` does: put the default action back.
fn restore_sigpipe() {
    #[cfg(unix)]
    {
        const SIGPIPE: i32 = 13;
        const SIG_DFL: usize = 0;
        unsafe extern "C" {
            fn signal(signum: i32, handler: usize) -> usize;
        }
        // SAFETY: sets a signal disposition before any thread starts.
        unsafe {
            signal(SIGPIPE, SIG_DFL);
        }
    }
}
