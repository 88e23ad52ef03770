//! Progress display for long reads, writes and generation: a bar (or spinner
//! when the total is unknown) on stderr that appears only once the work has
//! taken more than a second, and never when stderr is not a terminal.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Starts a hidden progress bar that shows itself after [`SHOW_AFTER`].
/// `total` is in bytes when given; `None` gives a spinner. The caller ends it
/// with `finish_and_clear`.
pub fn start(message: impl Into<String>, total: Option<u64>) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
    let style = match total {
        Some(_) => ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
        ),
        None => ProgressStyle::with_template("{spinner} {msg} {elapsed}"),
    };
    bar.set_style(style.expect("static template").progress_chars("=> "));
    bar.set_message(message.into());
    if std::io::stderr().is_terminal() {
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
