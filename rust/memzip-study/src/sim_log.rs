//! What runs read from `sim.log`, the simulator's output: the cycles, the
//! kernels launched, each kernel's DRAM work and how long memory made the
//! cores wait. gpgpu-sim prints
//! `gpu_tot_sim_cycle = N`, the running total, after every kernel; the last
//! one is the run's cycle count, and the steps from one to the next are the
//! kernels' durations.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::error::RunError;

fn open_log(log: &Path) -> Result<File, RunError> {
    File::open(log).map_err(|e| RunError::io(format!("{}: cannot read: {e}", log.display()), e))
}

fn read_error(log: &Path, e: std::io::Error) -> RunError {
    RunError::io(format!("{}: read error: {e}", log.display()), e)
}

/// The value of a `name = value` line of the log (blanks around `=` and
/// before the name allowed), if `line` is one.
fn counter_value<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.trim_start().strip_prefix(name)?.trim_start().strip_prefix('=').map(str::trim)
}

/// The last `gpu_tot_sim_cycle = N` of a simulator log.
pub fn last_total_cycles(log: &Path) -> Result<u64, RunError> {
    let file = open_log(log)?;
    let mut last = None;
    // Split on bytes: simulator logs may hold non-UTF-8 program output.
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| read_error(log, e))?;
        let line = String::from_utf8_lossy(&line);
        let Some(number) = counter_value(&line, "gpu_tot_sim_cycle") else {
            continue;
        };
        last = Some(number.parse::<u64>().map_err(|_| {
            RunError::malformed(format!("{}: `gpu_tot_sim_cycle = {number}` is not a cycle count", log.display()))
        })?);
    }
    last.ok_or_else(|| {
        RunError::missing(format!("{}: no `gpu_tot_sim_cycle = N` line (did the simulation finish?)", log.display()))
    })
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
        let count = counter_value(&line, "gpu_tot_sim_cycle")
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|n| n.parse().ok());
        last = count.or(last);
    }
    last
}

/// Every kernel's duration in a simulator log, in order: the steps of
/// `gpu_tot_sim_cycle = N` (the cycle each kernel ended at) from one kernel's
/// end to the next one's (module doc: why not `gpu_sim_cycle`).
pub fn kernel_cycles(log: &Path) -> Result<Vec<u64>, RunError> {
    let file = open_log(log)?;
    let mut ends = Vec::new();
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| read_error(log, e))?;
        let line = String::from_utf8_lossy(&line);
        let Some(rest) = counter_value(&line, "gpu_tot_sim_cycle") else {
            continue;
        };
        let n = rest.parse::<u64>().map_err(|_| {
            RunError::malformed(format!("{}: `gpu_tot_sim_cycle = {rest}` is not a cycle count", log.display()))
        })?;
        ends.push(n);
    }
    durations(&ends).map_err(|e| RunError::malformed(format!("{}: {e}", log.display())))
}

/// One kernel's DRAM work, summed over the channels: the DRAM command cycles
/// it spanned and the read and write commands (each one burst on the data bus)
/// it issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelDram {
    pub dram_cycles: u64,
    pub commands: u64,
}

impl KernelDram {
    /// The share of the kernel's DRAM cycles the data bus was busy, given the
    /// bus cycles one command's burst takes.
    pub fn utilization(&self, burst_cycles: f64) -> Option<f64> {
        (self.dram_cycles > 0).then(|| self.commands as f64 * burst_cycles / self.dram_cycles as f64)
    }
}

/// What a simulator log says of the kernels a run launched and of its DRAM.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KernelSummary {
    /// Kernels that ran to their end (`kernel_launch_uid = N` lines).
    pub kernel_launches: u64,
    /// Each kernel's DRAM work, in order.
    pub kernel_dram: Vec<KernelDram>,
    /// tRRD, the DRAM's minimum spacing of row activations in command
    /// cycles, from the option dump's `-gpgpu_dram_timing_opt` (v3.2.1's
    /// `DRAM[i]: ... tRRD=` line prints tCCD in its place).
    pub rrd_cycles: Option<u64>,
    /// What the cores waited on memory over the whole run, when the log says.
    pub memory_wait: MemoryWait,
}

/// gpgpu-sim's whole-run counters of waiting on memory: what a speedup short
/// of its bus estimate is left waiting on once compression frees the bus
/// (benchmarks/reproduction.md, the remaining gap). Both simulators print
/// them after every kernel from sums reset only when the simulator is built,
/// so the last value printed covers the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryWait {
    /// The mean core cycles from a memory fetch's creation to its return to
    /// the core (`averagemflatency`): queues, DRAM and both interconnect trips.
    pub fetch_latency_cycles: Option<u64>,
    /// Memory sub-partition cycles in which the sub-partition's input was too
    /// full to take a request from the interconnect (`gpu_stall_dramfull`):
    /// the DRAM queues backing up into the interconnect.
    pub dram_full_stalls: Option<u64>,
    /// The mean core cycles a reply takes from the memory partition back to
    /// the core through the interconnect (`avg_icnt2sh_latency`; dev prints
    /// it, v3.2.1 does not): the replies cross it decompressed, so a codec
    /// that frees the DRAM bus can move the wait there.
    pub reply_latency_cycles: Option<u64>,
    /// Cycles in which a memory partition's reply had to wait to enter the
    /// interconnect (`gpu_stall_icnt2sh`): the reply network backing up.
    pub reply_stalls: Option<u64>,
}

impl MemoryWait {
    /// Takes a log line's value if it is one of the counters (the later line wins).
    fn read_line(&mut self, line: &str) -> Result<(), String> {
        let counter = |name: &str| -> Result<Option<u64>, String> {
            counter_value(line, name)
                .map(|value| value.parse().map_err(|_| format!("`{name} = {value}` is not a count")))
                .transpose()
        };
        if let Some(latency) = counter("averagemflatency")? {
            self.fetch_latency_cycles = Some(latency);
        } else if let Some(stalls) = counter("gpu_stall_dramfull")? {
            self.dram_full_stalls = Some(stalls);
        } else if let Some(latency) = counter("avg_icnt2sh_latency")? {
            self.reply_latency_cycles = Some(latency);
        } else if let Some(stalls) = counter("gpu_stall_icnt2sh")? {
            self.reply_stalls = Some(stalls);
        }
        Ok(())
    }
}

/// The kernels of a simulator log. gpgpu-sim prints, after every kernel, its
/// `kernel_launch_uid`, the running `gpu_tot_sim_cycle` and each channel's
/// running DRAM counters (`n_cmd=C ... n_rd=R [n_rd_L2_A=A] n_write=W
/// [n_wr_bk=B] ... bw_util=U`); a kernel's DRAM work is the step of their sums
/// over the channels from the previous kernel's. The commands are counted
/// rather than `bw_util` used, as it is printed with 4 digits: the data bus
/// is busy one burst per command. The last [`MemoryWait`] counters printed
/// are the run's.
pub fn kernel_summary(log: &Path) -> Result<KernelSummary, RunError> {
    let file = open_log(log)?;
    let mut summary = KernelSummary::default();
    // The running sums printed after each kernel.
    let mut totals: Vec<KernelDram> = Vec::new();
    for line in BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| read_error(log, e))?;
        let line = String::from_utf8_lossy(&line);
        let line = line.trim();
        if line.starts_with("kernel_launch_uid = ") {
            summary.kernel_launches += 1;
        } else if counter_value(line, "gpu_tot_sim_cycle").is_some() {
            totals.push(KernelDram::default());
        } else if line.starts_with("n_cmd=") {
            let channel = channel_counters(line).map_err(|e| RunError::malformed(format!("{}: {e}", log.display())))?;
            if let Some(total) = totals.last_mut() {
                total.dram_cycles += channel.dram_cycles;
                total.commands += channel.commands;
            }
        } else if let Some(option) = line.strip_prefix("-gpgpu_dram_timing_opt") {
            summary.rrd_cycles = rrd_of_timing_option(option);
        } else {
            summary.memory_wait.read_line(line).map_err(|e| RunError::malformed(format!("{}: {e}", log.display())))?;
        }
    }
    let mut previous = KernelDram::default();
    for total in totals.into_iter().filter(|t| t.dram_cycles > 0) {
        let step = |now: u64, before: u64, what: &str| {
            now.checked_sub(before).ok_or_else(|| {
                RunError::malformed(format!("{}: the DRAM's {what} go back from {before} to {now}", log.display()))
            })
        };
        summary.kernel_dram.push(KernelDram {
            dram_cycles: step(total.dram_cycles, previous.dram_cycles, "cycles")?,
            commands: step(total.commands, previous.commands, "commands")?,
        });
        previous = total;
    }
    Ok(summary)
}

/// One channel's `n_cmd=...` line: its DRAM cycles and its read and write
/// commands (dev splits reads for write-allocate fills and write-backs into
/// `n_rd_L2_A` and `n_wr_bk`; v3.2.1 has only `n_rd` and `n_write`).
fn channel_counters(line: &str) -> Result<KernelDram, String> {
    let mut counters = KernelDram::default();
    for (key, value) in line.split_whitespace().filter_map(|token| token.split_once('=')) {
        let count = || value.parse::<u64>().map_err(|_| format!("`{key}={value}` is not a count"));
        match key {
            "n_cmd" => counters.dram_cycles = count()?,
            "n_rd" | "n_rd_L2_A" | "n_write" | "n_wr_bk" => counters.commands += count()?,
            _ => {}
        }
    }
    Ok(counters)
}

/// `RRD=N` of a `-gpgpu_dram_timing_opt` value (`nbk=16:CCD=2:RRD=12:...`).
pub fn rrd_of_timing_option(option: &str) -> Option<u64> {
    option
        .split(|c: char| c == ':' || c.is_whitespace())
        .find_map(|part| part.strip_prefix("RRD="))
        .and_then(|n| n.parse().ok())
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

    /// A log of two kernels on two channels, in dev's format (v3.2.1 lacks
    /// `n_rd_L2_A` and `n_wr_bk`).
    fn two_kernel_log() -> String {
        let channel = |cmd: u64, rd: u64, wb: u64| {
            format!("n_cmd={cmd} n_nop=1 n_act=3 n_pre=1 n_ref_event=0 n_req=9 n_rd={rd} n_rd_L2_A=1 n_write=0 n_wr_bk={wb} bw_util=0.6554\n")
        };
        // The memory-wait counters as gpgpu-sim prints them, running sums.
        let kernel = |uid: u64, tot: u64, channels: String| {
            format!(
                "kernel_name = k\nkernel_launch_uid = {uid} \ngpu_tot_sim_cycle = {tot}\ngpu_stall_dramfull = {}\n\
                 gpu_stall_icnt2sh    = {}\nDRAM[0]: 16 bks, tRRD=2 tCCD=12\n{channels}maxmflatency = 1553 \n\
                 averagemflatency = {} \nmax_icnt2sh_latency = 90 \navg_icnt2sh_latency = {} \n",
                40 * uid,
                5 * uid,
                300 + uid,
                10 + uid
            )
        };
        "-gpgpu_dram_timing_opt nbk=16:CCD=2:RRD=12:RCD=24:RAS=56:RP=24:RC=80: CL=24:WL=8 # DRAM timing\n".to_string()
            + &kernel(1, 100, channel(1000, 300, 99) + &channel(1000, 200, 99))
            + &kernel(2, 250, channel(2500, 500, 199) + &channel(2500, 1000, 199))
    }

    #[test]
    fn kernel_dram_is_the_step_of_the_channels_sums() {
        let dir = std::env::temp_dir().join(format!("memzip-kernel-summary-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("sim.log");
        std::fs::write(&log, two_kernel_log()).unwrap();
        let summary = kernel_summary(&log).unwrap();
        assert_eq!(summary.kernel_launches, 2);
        // Kernel 1: 2000 cycles, 300+1+99 + 200+1+99 = 700 commands; kernel 2: the rest.
        assert_eq!(
            summary.kernel_dram,
            vec![
                KernelDram { dram_cycles: 2000, commands: 700 },
                KernelDram { dram_cycles: 3000, commands: 1900 - 700 }
            ]
        );
        // The option's RRD, not the DRAM line's (which v3.2.1 prints swapped with tCCD).
        assert_eq!(summary.rrd_cycles, Some(12));
        assert_eq!(summary.kernel_dram[0].utilization(2.0), Some(0.7));
        // The last kernel's memory-wait counters: the whole run's.
        let wait = MemoryWait {
            fetch_latency_cycles: Some(302),
            dram_full_stalls: Some(80),
            reply_latency_cycles: Some(12),
            reply_stalls: Some(10),
        };
        assert_eq!(summary.memory_wait, wait);
        // Counters that go back are an error naming the log.
        std::fs::write(&log, two_kernel_log().replace("n_cmd=2500", "n_cmd=500")).unwrap();
        let err = kernel_summary(&log).unwrap_err().to_string();
        assert!(err.contains("sim.log") && err.contains("go back"), "{err}");
        std::fs::write(&log, two_kernel_log().replace("n_rd=500", "n_rd=x")).unwrap();
        let err = kernel_summary(&log).unwrap_err().to_string();
        assert!(err.contains("`n_rd=x` is not a count"), "{err}");
        std::fs::write(&log, two_kernel_log().replace("averagemflatency = 302", "averagemflatency = -1")).unwrap();
        let err = kernel_summary(&log).unwrap_err().to_string();
        assert!(err.contains("sim.log") && err.contains("`averagemflatency = -1` is not a count"), "{err}");
        // A log without them (a simulation stopped early) has none.
        let without: String = two_kernel_log()
            .lines()
            .filter(|l| !l.contains("latency") && !l.contains("stall"))
            .map(|l| l.to_string() + "\n")
            .collect();
        std::fs::write(&log, without).unwrap();
        assert_eq!(kernel_summary(&log).unwrap().memory_wait, MemoryWait::default());
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
        let err = kernel_cycles(&log).unwrap_err().to_string();
        assert!(err.contains("sim.log") && err.contains("from 50 to 40"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
