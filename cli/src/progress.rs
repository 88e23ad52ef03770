//! Progress display for long work — reading, writing, generating,
//! multiplying, APSP's squarings: a bar (or spinner when the total is
//! unknown) on stderr, with counts and an estimate of the time left, that
//! appears only once the work has taken more than a second, and never when
//! stderr is not a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Whether progress is shown at all: only on a terminal.
pub fn shown() -> bool {
    std::io::stderr().is_terminal()
}

/// Starts a hidden progress bar that shows itself after [`SHOW_AFTER`].
/// `total` is in bytes when given; `None` gives a spinner. The caller ends it
/// with `finish_and_clear`.
pub fn start(message: impl Into<String>, total: Option<u64>) -> ProgressBar {
    let template = match total {
        Some(_) => "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        None => "{spinner} {msg} {elapsed}",
    };
    shown_after_a_second(message.into(), total, template)
}

/// Starts a hidden progress bar over `total` units of work (`unit` names
/// them: "products", "squarings"), shown after [`SHOW_AFTER`] with the
/// count done and the time left. The caller advances it with `inc` or
/// `set_position` and ends it with `finish_and_clear`.
pub fn work(message: impl Into<String>, total: u64, unit: &str) -> ProgressBar {
    let template = format!("{{msg}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} eta {{eta}}");
    shown_after_a_second(message.into(), Some(total), &template)
}

/// A hidden bar with `template`, drawn on stderr from [`SHOW_AFTER`] on
/// when stderr is a terminal.
fn shown_after_a_second(message: String, total: Option<u64>, template: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
    let style = ProgressStyle::with_template(template).expect("a valid template");
    bar.set_style(style.progress_chars("=> "));
    bar.set_message(spmx::io::printable(&message).into_owned());
    if shown() {
        let weak = bar.downgrade();
        std::thread::spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            if let Some(bar) = weak.upgrade().filter(|b| !b.is_finished()) {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.enable_steady_tick(Duration::from_millis(120));
            }
        });
    }
    bar
}
