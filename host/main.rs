//! The `spmx` command line: read, inspect, convert, generate, multiply and
//! benchmark matrices. Each subcommand lives in `host/cli/`; errors print
//! with their full context and exit non-zero.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    restore_sigpipe();
    leave_no_partial_output_on_signals();
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
    // SAFETY: sets a signal disposition before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Ctrl-C (SIGINT), SIGTERM and SIGHUP while a MatrixMarket output is
/// being written would leave its temporary file behind (a killed process
/// runs no destructors): remove every unfinished one, then die of the
/// signal as before (default action, raised again). Targets are replaced
/// only by a finished, synced file, so the previous output stays as it
/// was. A signal the process was started with ignored (`nohup`, `&` in a
/// script) stays ignored.
fn leave_no_partial_output_on_signals() {
    #[cfg(unix)]
    {
        use libc::{_exit, SIG_DFL, SIG_IGN, SIGHUP, SIGINT, SIGTERM, raise, signal};
        extern "C" fn on_signal(signum: i32) {
            spmx::io::remove_unfinished_outputs();
            // SAFETY: async-signal-safe calls only; the default action of
            // these signals ends the process, `_exit` in case it did not.
            unsafe {
                signal(signum, SIG_DFL);
                raise(signum);
                _exit(128 + signum)
            }
        }
        for signum in [SIGHUP, SIGINT, SIGTERM] {
            // SAFETY: sets a signal disposition before any thread starts;
            // the handler only unlinks and re-raises.
            unsafe {
                if signal(signum, on_signal as extern "C" fn(i32) as usize) == SIG_IGN {
                    signal(signum, SIG_IGN);
                }
            }
        }
    }
}
