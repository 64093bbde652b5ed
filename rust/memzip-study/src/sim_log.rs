//! What runs read from `sim.log`, the simulator's output: the cycles.
//! gpgpu-sim prints `gpu_tot_sim_cycle = N`, the running total, after every
//! kernel; the last one is the run's cycle count, and the steps from one to
//! the next are the kernels' durations.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The last `gpu_tot_sim_cycle = N` of a simulator log.
pub fn last_total_cycles(log: &Path) -> Result<u64, String> {
    let file = File::open(log).map_err(|e| format!("{}: cannot read: {e}", log.display()))?;
    let mut last = None;
    // Split on bytes: simulator logs may hold non-UTF-8 program output.
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| format!("{}: read error: {e}", log.display()))?;
        let line = String::from_utf8_lossy(&line);
        let Some(rest) = line.trim_start().strip_prefix("gpu_tot_sim_cycle") else {
            continue;
        };
        let Some(number) = rest.trim_start().strip_prefix('=') else {
            continue;
        };
        let number = number.trim();
        last = Some(
            number
                .parse::<u64>()
                .map_err(|_| format!("{}: `gpu_tot_sim_cycle = {number}` is not a cycle count", log.display()))?,
        );
    }
    last.ok_or_else(|| format!("{}: no `gpu_tot_sim_cycle = N` line (did the simulation finish?)", log.display()))
}

/// The last `gpu_tot_sim_cycle = N` line's N, for a run's record: `None`
/// when the log is missing or has no such line (the simulation printed no
/// kernel's end). Lines of another form are passed over, not errors.
pub fn last_cycle_count(log: &Path) -> Option<u64> {
    let file = File::open(log).ok()?;
    let mut last = None;
    for line in BufReader::new(file).split(b'\n') {
        let line = line.ok()?;
        let line = String::from_utf8_lossy(&line);
        let count = line
            .trim()
            .strip_prefix("gpu_tot_sim_cycle")
            .and_then(|rest| rest.trim_start().strip_prefix('='))
            .map(str::trim)
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse().ok());
        last = count.or(last);
    }
    last
}

/// Every kernel's duration in a simulator log, in order: the steps of
/// `gpu_tot_sim_cycle = N` (the cycle each kernel ended at) from one kernel's
/// end to the next one's (module doc: why not `gpu_sim_cycle`).
pub fn kernel_cycles(log: &Path) -> Result<Vec<u64>, String> {
    let file = File::open(log).map_err(|e| format!("{}: cannot read: {e}", log.display()))?;
    let mut ends = Vec::new();
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| format!("{}: read error: {e}", log.display()))?;
        let line = String::from_utf8_lossy(&line);
        let Some(rest) = line.trim().strip_prefix("gpu_tot_sim_cycle = ") else {
            continue;
        };
        let n = rest
            .trim()
            .parse::<u64>()
            .map_err(|_| format!("{}: `gpu_tot_sim_cycle = {rest}` is not a cycle count", log.display()))?;
        ends.push(n);
    }
    durations(&ends).map_err(|e| format!("{}: {e}", log.display()))
}

/// Kernel durations from the cycles the kernels ended at (non-decreasing).
fn durations(ends: &[u64]) -> Result<Vec<u64>, String> {
    let mut previous = 0;
    let mut cycles = Vec::with_capacity(ends.len());
    for &end in ends {
        let step = end
            .checked_sub(previous)
            .ok_or_else(|| format!("`gpu_tot_sim_cycle` goes back from {previous} to {end}"))?;
        cycles.push(step);
        previous = end;
    }
    Ok(cycles)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_takes_the_last_total_and_skips_other_lines() {
        let dir = std::env::temp_dir().join(format!("memzip-sim-log-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("sim.log");
        std::fs::write(&log, "gpu_tot_sim_cycle = 10\n  gpu_tot_sim_cycle=25 \ngpu_tot_sim_cycle = x\n").unwrap();
        assert_eq!(last_cycle_count(&log), Some(25));
        std::fs::write(&log, "no cycles\n").unwrap();
        assert_eq!(last_cycle_count(&log), None);
        assert_eq!(last_cycle_count(&dir.join("missing.log")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn kernel_durations_are_steps_of_the_total_cycles() {
        // v3.2.1 log of fastWalshTransform under mag_bdi: the fourth kernel's
        // gpu_sim_cycle (27346) also holds the third's 13579 cycles.
        let dir = std::env::temp_dir().join(format!("memzip-power-durations-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("sim.log");
        let kernel = |sim: u64, tot: u64| {
            format!("kernel_name = k\ngpu_sim_cycle = {sim}\ngpu_sim_insn = 9\ngpu_tot_sim_cycle = {tot}\n")
        };
        let text = kernel(13461, 13461) + &kernel(11992, 25453) + &kernel(13579, 39032) + &kernel(27346, 52799);
        std::fs::write(&log, text).unwrap();
        assert_eq!(kernel_cycles(&log).unwrap(), vec![13461, 11992, 13579, 13767]);
        std::fs::write(&log, kernel(5, 50) + &kernel(5, 40)).unwrap();
        let err = kernel_cycles(&log).unwrap_err();
        assert!(err.contains("sim.log") && err.contains("from 50 to 40"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
