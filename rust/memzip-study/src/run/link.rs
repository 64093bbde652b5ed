//! Multi-GPU runs: `memzip-mgpu` (mgpusim-plugin/) compresses the payloads
//! that travel between GPUs, so its `stats.json` holds
//!
//! - `codec` and `cycles` (kernel time, 1 GHz);
//! - `link`: the payload messages (null under `none`, which installs
//!   nothing): `total.raw_compression_ratio`, `total.wire_compression_ratio`,
//!   `verified_messages`, ...;
//! - `fabric`: the bus's traffic (`total.bytes`, `total.busy_cycles`), null
//!   on MGPUSim's PCIe platform, whose traffic memzip does not see whole;
//! - `energy`: `fabric_pj`, `compress_pj`, `decompress_pj`, `total_pj`.
//!
//! A run's traffic is then the bytes on the fabric (on PCIe: the payload
//! messages' bytes), its raw and effective compression ratios the payloads'
//! exact and on-the-link ones, and its energy the fabric's plus the codecs'.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use super::fields::{field, not_a, optional, read_json, u64_field};
use super::model::{Medium, Run, RunEnergy};
use super::record::RunRecord;
use super::run_json::RunJson;
use crate::error::RunError;

/// The simulated clock of MGPUSim's R9 Nano platform.
const CORE_HZ: f64 = 1e9;

/// Whether `stats.json` is a multi-GPU run's.
pub(super) fn is_link_stats(stats: &Value) -> bool {
    stats.get("total").is_none() && stats.get("link").is_some() && stats.get("fabric").is_some()
}

fn object<'a>(stats: &'a Value, key: &str) -> Option<&'a Value> {
    stats.get(key).filter(|v| v.is_object())
}

fn number(value: &Value, key: &str, file: &Path) -> Result<f64, RunError> {
    field(value, key, file)?.as_f64().ok_or_else(|| not_a(key, "a number", file))
}

/// Reads a multi-GPU run directory (see the module comment).
pub(super) fn load(dir: &Path, stats: &Value, stats_path: &Path) -> Result<Run, RunError> {
    let RunJson { program, codec, output_ok, wall_seconds, simulator, simulator_sources, kernel_launches, .. } =
        RunJson::read(dir)?;
    let stats_codec = match stats.get("codec").and_then(Value::as_str) {
        Some(codec) => codec.to_string(),
        None => codec
            .clone()
            .ok_or_else(|| RunError::missing(format!("{}: no `codec` here or in run.json", stats_path.display())))?,
    };
    let cycles = u64_field(stats, "cycles", stats_path)?;
    let link = object(stats, "link");
    let fabric = object(stats, "fabric");
    let traffic_bytes = match (fabric, link) {
        (Some(fabric), _) => u64_field(fabric, "total.bytes", stats_path)?,
        (None, Some(link)) => {
            u64_field(link, "total.wire_payload_bytes", stats_path)?
                + u64_field(link, "total.header_bytes", stats_path)?
        }
        (None, None) => 0,
    };
    let ratio = |key: &str| -> Result<Option<f64>, RunError> {
        link.map(|l| number(l, key, stats_path)).transpose().map(|v| v.filter(|r| *r > 0.0))
    };
    let fabric_utilization = match (fabric, total_cycles(dir)?) {
        (Some(fabric), Some(total)) if total > 0 => {
            Some(u64_field(fabric, "total.busy_cycles", stats_path)? as f64 / total as f64)
        }
        _ => None,
    };
    let energy = object(stats, "energy")
        .map(|e| -> Result<RunEnergy, RunError> {
            Ok(RunEnergy {
                total_pj: number(e, "total_pj", stats_path)?,
                dram_pj: number(e, "fabric_pj", stats_path)?,
                codec_pj: number(e, "compress_pj", stats_path)? + number(e, "decompress_pj", stats_path)?,
                metadata_pj: 0.0,
                core_hz: Some(CORE_HZ),
            })
        })
        .transpose()?;
    let verified = link.map(|l| u64_field(l, "verified_messages", stats_path)).transpose()?.unwrap_or(0);
    let mut label = codec.unwrap_or_else(|| stats_codec.clone());
    let record = RunRecord::read(dir)?;
    if let Some(variant) = record.as_ref().and_then(|r| r.variant.as_ref()) {
        label = format!("{label} [{variant}]");
    }
    Ok(Run {
        dir: dir.display().to_string(),
        program,
        label,
        stats_codec,
        cycles,
        medium: Medium::Fabric,
        dram_bytes: traffic_bytes,
        raw_cr: ratio("total.raw_compression_ratio")?,
        effective_cr: ratio("total.wire_compression_ratio")?,
        mdc_hit_rate: None,
        dram_utilization: fabric_utilization,
        // A payload that fails to decode stops the run: finished runs have none.
        verify_checked: verified,
        verify_failures: 0,
        output_ok,
        wall_seconds,
        timing_model: record.map(|r| r.timing_model),
        simulator_sources,
        simulator,
        gpu: Default::default(),
        energy,
        gpu_power: None,
        stored_sizes: BTreeMap::new(),
        // The fabric has no DRAM counters or tRRD: no DRAM bounds.
        dram: None,
        partial: None,
        kernel_launches,
        kernel_dram: None,
        rrd_cycles: None,
        memory_wait: Default::default(),
        output_error: None,
        model_change: None,
    })
}

/// `run.json`'s `total_cycles` (kernels and copies), if any.
fn total_cycles(dir: &Path) -> Result<Option<u64>, RunError> {
    let path = dir.join("run.json");
    if !path.exists() {
        return Ok(None);
    }
    optional(&read_json(&path)?, "total_cycles", &path, Value::as_u64, "a count")
}
