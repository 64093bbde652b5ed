//! How a sweep runs one runner: under a small shell guard that takes the
//! runner's whole process group with it when the sweep goes away, and stops
//! a runner that outlives `--timeout`.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs its arguments (the runner) in a process group of their own and kills
/// that group once its standard input, a pipe whose other end only the sweep
/// holds, reaches end of file: the sweep ended, crashed or was killed. The
/// kernel closes the pipe whatever killed the sweep, so this needs no signal
/// handler (a SIGKILL cannot be handled).
pub const GUARD: &str = r#"exec 3<&0
set -m
"$@" </dev/null 3<&- &
runner=$!
set +m
{ read -r _ <&3; kill -TERM -- "-$runner" 2>/dev/null; sleep 2; kill -KILL -- "-$runner" 2>/dev/null; } &
watcher=$!
wait "$runner"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"
"#;

/// The start of the reason of a run stopped by `--timeout`.
pub(crate) const TIMED_OUT: &str = "timed out after";

/// Runs a guarded runner with its output in `log`; whether it succeeded, and
/// why not. A runner still going after `timeout` is stopped by its guard.
pub(crate) fn run_guarded(
    mut command: Command,
    log: &Path,
    timeout: Option<Duration>,
) -> Result<(bool, String), String> {
    let file = fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let file2 = file.try_clone().map_err(|e| format!("{}: {e}", log.display()))?;
    command.stdin(Stdio::piped()).stdout(file).stderr(file2);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(e) => return Ok((false, format!("cannot start the runner under bash: {e}"))),
    };
    // Held until the runner ends: dropping it (or the sweep dying) is the guard's signal.
    let stdin = child.stdin.take();
    let ended = wait_at_most(&mut child, timeout)?;
    // Closing the pipe ends the guard's watch; if the runner is still going,
    // the guard kills its group (TERM, KILL 2 s later) and exits.
    drop(stdin);
    match ended {
        Some(status) => Ok((status.success(), format!("runner exited with {status}"))),
        None => {
            child.wait().map_err(|e| format!("waiting for the stopped runner: {e}"))?;
            let limit = timeout.unwrap_or_default().as_secs_f64();
            Ok((false, format!("{TIMED_OUT} {limit} s (--timeout): stopped")))
        }
    }
}

/// The child's exit status, or None if it is still running after `timeout`.
fn wait_at_most(
    child: &mut std::process::Child,
    timeout: Option<Duration>,
) -> Result<Option<std::process::ExitStatus>, String> {
    let waiting = |e: std::io::Error| format!("waiting for the runner: {e}");
    // No limit, or one past what the clock can represent: wait for the end.
    let Some(deadline) = timeout.and_then(|limit| Instant::now().checked_add(limit)) else {
        return child.wait().map(Some).map_err(waiting);
    };
    loop {
        if let Some(status) = child.try_wait().map_err(waiting)? {
            return Ok(Some(status));
        }
        let now = Instant::now();
        if now >= deadline {
            return Ok(None);
        }
        // Runs last minutes: a quarter-second poll costs nothing and stops within it.
        std::thread::sleep((deadline - now).min(Duration::from_millis(250)));
    }
}

/// A `--timeout` value: seconds, or a number with `s`, `m` or `h`
/// (`90`, `45s`, `30m`, `2h`; fractions allowed).
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().last() {
        Some((i, 's')) => (&text[..i], 1.0),
        Some((i, 'm')) => (&text[..i], 60.0),
        Some((i, 'h')) => (&text[..i], 3600.0),
        _ => (text, 1.0),
    };
    let seconds = number.parse::<f64>().ok().filter(|n| *n > 0.0 && n.is_finite()).ok_or_else(|| {
        format!("'{text}' is not a duration (seconds, or a positive number with s, m or h: 90, 30m, 2h)")
    })?;
    Duration::try_from_secs_f64(seconds * unit).map_err(|_| format!("'{text}' is too large a duration"))
}
