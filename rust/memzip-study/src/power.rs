//! The simulator's own power model around memzip: whole-GPU energy and
//! energy-delay product, as the E2MC paper Fig. 13 reports them (GPUWattch).
//!
//! `memzip run --power` turns the model on: GPUWattch on gpgpu-sim
//! v3.2.1, AccelWattch on dev, both with the GTX480 GPUWattch XML the
//! simulator ships, patched for our GTX580 (gpgpu-sim-patch/<version>/power/).
//! The simulator writes one report per run into the run directory
//! (`gpgpusim_power_report__<date>.log` on v3.2.1,
//! `accelwattch_power_report.log` on dev); this module reads it. The
//! simulator seam stays as it is: nothing is added to its C++.
//!
//! Per kernel the report gives the average power over the power model's
//! samples (one every `-gpgpu_runtime_stat` cycles): the total and each
//! component (`gpu_avg_<LABEL> = W`, the components first, then the
//! performance counters from `TOT_INST` on). A kernel's energy is its
//! average power times its duration over the core clock
//! (`total.energy.core_hz` of `stats.json`). The duration is the step of
//! `gpu_tot_sim_cycle` from the previous kernel's end to this one's (in
//! `sim.log`, same order as the report), not the kernel's `gpu_sim_cycle`:
//! the simulator resets that only when the GPU goes idle, so a kernel
//! launched before the previous one retired reports both kernels' cycles
//! (v3.2.1, fastWalshTransform under mag_bdi: kernel 4 printed 27346 =
//! 13579 of kernel 3 + its own 13767), and those cycles would be charged
//! twice. The steps add up to the run's cycles. A kernel shorter than one sample
//! has no sample: the simulator prints `nan`, and the kernel is counted in
//! `unsampled_kernels` with no energy.
//!
//! Whole-GPU power is the sum of the components. AccelWattch's printed total
//! (`kernel_avg_power`) is that sum; GPUWattch's (`gpu_avg_power`, the McPAT
//! runtime dynamic power) leaves out its `CONST_DYNAMICP` component, which
//! its `update_components_power` adds for its own total check — so
//! [`KernelPower::printed_total_mismatch_w`] compares the printed total with
//! the components minus that one.
//!
//! The DRAM energy the model charges (`DRAMP`) counts the simulator's DRAM
//! reads and writes, which under memzip are the compressed bursts plus the
//! metadata-cache misses' traffic: compression shows up there. memzip's
//! codec and metadata-cache energy (`total.energy.codec_pj` and
//! `metadata_pj`) are not in the simulator's model and are added to it for
//! the run's total; memzip's own DRAM figure is not (the power model's DRAM
//! already counts those bursts).

use std::path::{Path, PathBuf};

use crate::error::RunError;

/// GPUWattch (v3.2.1): `gpgpusim_power_report__<date>.log`.
const GPUWATTCH_PREFIX: &str = "gpgpusim_power_report__";
/// AccelWattch (dev): its fixed report name.
const ACCELWATTCH_REPORT: &str = "accelwattch_power_report.log";
/// The first performance-counter label: the components end before it.
const FIRST_COUNTER: &str = "TOT_INST";
/// GPUWattch's component that its printed total leaves out.
const GPUWATTCH_UNPRINTED: &str = "CONST_DYNAMICP";
/// The DRAM component.
const DRAM_COMPONENT: &str = "DRAMP";

/// Which power model wrote a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PowerModel {
    GpuWattch,
    AccelWattch,
}

impl PowerModel {
    pub fn name(self) -> &'static str {
        match self {
            PowerModel::GpuWattch => "GPUWattch",
            PowerModel::AccelWattch => "AccelWattch",
        }
    }
}

/// One kernel's average power (W) as the report prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelPower {
    pub kernel: String,
    /// `gpu_avg_power` (GPUWattch) or `kernel_avg_power` (AccelWattch).
    pub printed_total_w: f64,
    /// The components in report order, labels without the trailing comma.
    pub components_w: Vec<(String, f64)>,
}

impl KernelPower {
    /// Whole-GPU power: the sum of the components.
    pub fn gpu_w(&self) -> f64 {
        self.components_w.iter().map(|(_, w)| w).sum()
    }

    pub fn component_w(&self, label: &str) -> Option<f64> {
        self.components_w.iter().find(|(l, _)| l == label).map(|(_, w)| *w)
    }

    /// No power sample in the kernel (the simulator printed `nan`).
    pub fn unsampled(&self) -> bool {
        !self.printed_total_w.is_finite() || self.components_w.iter().any(|(_, w)| !w.is_finite())
    }

    /// Printed total minus what it is the sum of (see the module doc).
    pub fn printed_total_mismatch_w(&self, model: PowerModel) -> f64 {
        let counted: f64 = self
            .components_w
            .iter()
            .filter(|(l, _)| model != PowerModel::GpuWattch || l != GPUWATTCH_UNPRINTED)
            .map(|(_, w)| w)
            .sum();
        self.printed_total_w - counted
    }
}

/// A run's whole-GPU energy from the power model.
#[derive(Debug, Clone, PartialEq)]
pub struct GpuEnergy {
    pub model: PowerModel,
    pub report: PathBuf,
    pub kernels: usize,
    /// Kernels shorter than one power sample: no energy counted.
    pub unsampled_kernels: usize,
    /// Sum over kernels of component power x kernel time (pJ).
    pub gpu_pj: f64,
    /// The `DRAMP` part of `gpu_pj`.
    pub dram_pj: f64,
    /// Each component's energy summed over kernels (pJ), report order.
    pub components_pj: Vec<(String, f64)>,
    /// The largest |printed total - its components| over sampled kernels (W).
    pub max_printed_total_mismatch_w: f64,
}

fn parse_number(text: &str, line_no: usize, file: &Path) -> Result<f64, RunError> {
    let t = text.trim();
    // glibc prints a 0/0 average as `nan` or `-nan`.
    if t.trim_start_matches('-').eq_ignore_ascii_case("nan") {
        return Ok(f64::NAN);
    }
    t.parse::<f64>().map_err(|_| RunError::malformed(format!("{}:{line_no}: `{t}` is not a number", file.display())))
}

/// An average-power section being read.
#[derive(Default)]
struct Section {
    total: Option<f64>,
    components: Vec<(String, f64)>,
    /// The performance counters have begun: no more components.
    counters: bool,
}

/// Parses a GPUWattch or AccelWattch report: one [`KernelPower`] per
/// "Kernel Average Power Data" section, in order.
pub fn parse_report(text: &str, file: &Path) -> Result<Vec<KernelPower>, RunError> {
    let mut kernels = Vec::new();
    let mut kernel_name = String::new();
    let mut section: Option<Section> = None;
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = line.trim();
        if let Some(name) = line.strip_prefix("kernel_name = ") {
            kernel_name = name.trim().to_string();
            continue;
        }
        if line == "Kernel Average Power Data:" {
            section = Some(Section::default());
            continue;
        }
        let Some(Section { total, components, counters }) = section.as_mut() else {
            continue;
        };
        if line.is_empty() || line.starts_with("Kernel ") {
            let total = total.ok_or_else(|| {
                RunError::malformed(format!(
                    "{}:{line_no}: kernel {kernel_name} has no average total power line",
                    file.display()
                ))
            })?;
            if components.is_empty() {
                return Err(RunError::malformed(format!(
                    "{}:{line_no}: kernel {kernel_name} lists no power component",
                    file.display()
                )));
            }
            kernels.push(KernelPower {
                kernel: kernel_name.clone(),
                printed_total_w: total,
                components_w: std::mem::take(components),
            });
            section = None;
            continue;
        }
        let Some((key, value)) = line.split_once(" = ") else {
            return Err(RunError::malformed(format!(
                "{}:{line_no}: expected `name = value`, found `{line}`",
                file.display()
            )));
        };
        if key == "gpu_avg_power" || key == "kernel_avg_power" {
            *total = Some(parse_number(value, line_no, file)?);
        } else if let Some(label) = key.strip_prefix("gpu_avg_") {
            let label = label.trim_end_matches(',');
            *counters |= label == FIRST_COUNTER;
            if !*counters {
                components.push((label.to_string(), parse_number(value, line_no, file)?));
            }
        }
    }
    if section.is_some() {
        return Err(RunError::malformed(format!(
            "{}: the last kernel's average power section is cut off",
            file.display()
        )));
    }
    Ok(kernels)
}

/// The power report of a run directory, if the run had the power model on.
pub fn find_report(dir: &Path) -> Result<Option<(PowerModel, PathBuf)>, RunError> {
    let cannot_list = |e: std::io::Error| RunError::io(format!("{}: cannot list: {e}", dir.display()), e);
    let entries = std::fs::read_dir(dir).map_err(cannot_list)?;
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(cannot_list)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == ACCELWATTCH_REPORT {
            found.push((PowerModel::AccelWattch, entry.path()));
        } else if name.starts_with(GPUWATTCH_PREFIX) && name.ends_with(".log") {
            found.push((PowerModel::GpuWattch, entry.path()));
        }
    }
    match found.len() {
        0 => Ok(None),
        1 => Ok(found.pop()),
        _ => Err(RunError::inconsistent(format!(
            "{}: more than one power report: keep one run per directory",
            dir.display()
        ))),
    }
}

/// Whole-GPU energy of kernels of the given cycle counts at `core_hz`.
pub fn gpu_energy(
    model: PowerModel,
    report: PathBuf,
    kernels: &[KernelPower],
    cycles: &[u64],
    core_hz: f64,
) -> Result<GpuEnergy, RunError> {
    if kernels.len() != cycles.len() {
        return Err(RunError::inconsistent(format!(
            "{}: {} kernels, but sim.log has {} `gpu_tot_sim_cycle` lines",
            report.display(),
            kernels.len(),
            cycles.len()
        )));
    }
    if !(core_hz > 0.0 && core_hz.is_finite()) {
        return Err(RunError::malformed(format!("{}: core clock {core_hz} Hz is not positive", report.display())));
    }
    let mut energy = GpuEnergy {
        model,
        report,
        kernels: kernels.len(),
        unsampled_kernels: 0,
        gpu_pj: 0.0,
        dram_pj: 0.0,
        components_pj: Vec::new(),
        max_printed_total_mismatch_w: 0.0,
    };
    for (kernel, &n) in kernels.iter().zip(cycles) {
        if kernel.unsampled() {
            energy.unsampled_kernels += 1;
            continue;
        }
        let seconds = n as f64 / core_hz;
        for (label, w) in &kernel.components_w {
            let pj = w * seconds * 1e12;
            match energy.components_pj.iter_mut().find(|(l, _)| l == label) {
                Some((_, sum)) => *sum += pj,
                None => energy.components_pj.push((label.clone(), pj)),
            }
        }
        energy.gpu_pj += kernel.gpu_w() * seconds * 1e12;
        energy.dram_pj += kernel.component_w(DRAM_COMPONENT).unwrap_or(0.0) * seconds * 1e12;
        let mismatch = kernel.printed_total_mismatch_w(model).abs();
        energy.max_printed_total_mismatch_w = energy.max_printed_total_mismatch_w.max(mismatch);
    }
    Ok(energy)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GPUWattch section as v3.2.1 prints it (components shortened).
    fn gpuwattch_kernel(name: &str, total: &str, dram: &str, constant: &str) -> String {
        format!(
            "kernel_name = {name} \nkernel_launch_uid = 1 \n\nKernel Average Power Data:\n\
             gpu_avg_power = {total}\ngpu_avg_IBP, = 0.5\ngpu_avg_DRAMP, = {dram}\n\
             gpu_avg_CONST_DYNAMICP = {constant}\ngpu_avg_TOT_INST, = 2058.13\ngpu_avg_MEM_RD, = 1422.89\n\
             \nKernel Maximum Power Data:\ngpu_max_power = 112.99\ngpu_max_DRAMP, = 77.1\n\n"
        )
    }

    #[test]
    fn parses_gpuwattch_components_up_to_the_counters() {
        let text = gpuwattch_kernel("k1", "60.5", "60", "2") + &gpuwattch_kernel("k2", "10.5", "10", "0");
        let kernels = parse_report(&text, Path::new("r.log")).unwrap();
        assert_eq!(kernels.len(), 2);
        assert_eq!(kernels[0].kernel, "k1");
        assert_eq!(kernels[0].printed_total_w, 60.5);
        assert_eq!(
            kernels[0].components_w,
            vec![("IBP".to_string(), 0.5), ("DRAMP".to_string(), 60.0), ("CONST_DYNAMICP".to_string(), 2.0)]
        );
        assert_eq!(kernels[0].gpu_w(), 62.5, "whole GPU includes the constant part");
        assert_eq!(kernels[0].printed_total_mismatch_w(PowerModel::GpuWattch), 0.0, "printed total omits it");
        assert_eq!(kernels[0].printed_total_mismatch_w(PowerModel::AccelWattch), -2.0);
    }

    #[test]
    fn energy_is_power_times_kernel_time() {
        let text = gpuwattch_kernel("k1", "60.5", "60", "2") + &gpuwattch_kernel("k2", "10.5", "10", "0");
        let kernels = parse_report(&text, Path::new("r.log")).unwrap();
        // 1000 cycles at 1 GHz = 1 us: 62.5 W -> 62.5 uJ; 2000 cycles: 10.5 W x 2 us = 21 uJ.
        let e = gpu_energy(PowerModel::GpuWattch, "r.log".into(), &kernels, &[1000, 2000], 1e9).unwrap();
        assert!((e.gpu_pj - 83.5e6).abs() < 1e-3, "{}", e.gpu_pj);
        assert!((e.dram_pj - 80.0e6).abs() < 1e-3, "{}", e.dram_pj);
        assert_eq!(e.components_pj.len(), 3);
        assert_eq!((e.kernels, e.unsampled_kernels), (2, 0));
        let err = gpu_energy(PowerModel::GpuWattch, "r.log".into(), &kernels, &[1000], 1e9).unwrap_err().to_string();
        assert!(err.contains("2 kernels") && err.contains("1 `gpu_tot_sim_cycle`"), "{err}");
    }

    #[test]
    fn a_kernel_without_a_sample_counts_no_energy() {
        let text = gpuwattch_kernel("short", "-nan", "-nan", "nan") + &gpuwattch_kernel("k", "1", "1", "0");
        let kernels = parse_report(&text, Path::new("r.log")).unwrap();
        assert!(kernels[0].unsampled());
        let e = gpu_energy(PowerModel::GpuWattch, "r.log".into(), &kernels, &[100, 1000], 1e9).unwrap();
        assert_eq!(e.unsampled_kernels, 1);
        assert!((e.gpu_pj - 1.5e6).abs() < 1e-6, "{}", e.gpu_pj);
    }

    #[test]
    fn parses_accelwattch_totals() {
        let text = "kernel_name = k\nKernel Average Power Data:\nkernel_avg_power = 3\ngpu_avg_DRAMP, = 2\n\
                    gpu_avg_CONSTP = 1\ngpu_avg_STATICP = 0\ngpu_avg_TOT_INST, = 5\ngpu_avg_threads_per_warp = 3\n\n";
        let kernels = parse_report(text, Path::new("a.log")).unwrap();
        assert_eq!(kernels[0].gpu_w(), 3.0);
        assert_eq!(kernels[0].printed_total_mismatch_w(PowerModel::AccelWattch), 0.0);
    }

    #[test]
    fn rejects_bad_reports_naming_file_and_line() {
        let bad = "Kernel Average Power Data:\ngpu_avg_power = 1\ngpu_avg_DRAMP, = lots\n\n";
        let err = parse_report(bad, Path::new("r.log")).unwrap_err().to_string();
        assert_eq!(err, "r.log:3: `lots` is not a number");
        let cut = "Kernel Average Power Data:\ngpu_avg_power = 1\ngpu_avg_DRAMP, = 1\n";
        assert!(parse_report(cut, Path::new("r.log")).unwrap_err().to_string().contains("cut off"));
        let no_total = "Kernel Average Power Data:\ngpu_avg_DRAMP, = 1\n\n";
        assert!(parse_report(no_total, Path::new("r.log")).unwrap_err().to_string().contains("no average total"));
    }
}
