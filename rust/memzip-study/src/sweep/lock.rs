//! `OUT/.sweep.lock`: one sweep at a time writes into a results directory.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// `OUT/.sweep.lock`, holding the pid of the sweep that owns `OUT`; removed
/// when the sweep ends (a killed sweep's lock is stale: its pid is gone).
pub struct OutLock {
    path: PathBuf,
}

/// Whether `pid` is a running memzip process (a stale lock's pid may have
/// been reused by another program).
fn is_running_memzip(pid: u32) -> bool {
    fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains("memzip"))
}

/// Takes `OUT/.sweep.lock`, or says which sweep holds it.
pub fn lock_out(out: &Path) -> Result<OutLock, String> {
    let path = out.join(".sweep.lock");
    for _ in 0..2 {
        match fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(mut file) => {
                writeln!(file, "{}", std::process::id()).map_err(|e| format!("{}: {e}", path.display()))?;
                return Ok(OutLock { path });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let holder = fs::read_to_string(&path).ok().and_then(|s| s.trim().parse::<u32>().ok());
                match holder {
                    Some(pid) if pid != std::process::id() && is_running_memzip(pid) => {
                        return Err(format!(
                            "{}: another sweep (pid {pid}) is still running into this directory: wait for it or stop it (lock {})",
                            out.display(),
                            path.display()
                        ))
                    }
                    // Stale: its sweep was killed. Take it over.
                    _ => fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?,
                }
            }
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    Err(format!("{}: cannot take the lock", path.display()))
}

impl Drop for OutLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}
