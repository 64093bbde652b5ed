//! `run.json`: what a run was (codec, program, simulator build) and how it
//! went (exit status, cycles, times, DRAM utilisation, whether its output was
//! right). `memzip run` writes it ([`crate::simulate`]); `memzip table`,
//! `report` and `power` read it. Every field is optional on reading: runs
//! made by older versions lack some, and a run directory may have no
//! `run.json` at all. Fields other tools add (scripts/collect-runs.sh's
//! `kernel_cycles` of a committed power run, memzip-mgpu's `gpus`, `fabric`,
//! ...) are theirs: this type neither reads nor drops them.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::fields::{optional, read_json};
use crate::error::RunError;
use crate::files::write_atomically;
use crate::gpu::Gpu;
use crate::output_error::{self, OutputError};

/// The file's name in a run directory.
pub const RUN_JSON: &str = "run.json";

/// The fields of `run.json`, in the order they are written.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunJson {
    /// The codec spec the run was made with (`-memzip_codec`).
    pub codec: Option<String>,
    /// What `memzip table` groups runs by: a benchmark and preset
    /// (`rodinia/bfs tiny`), or the program and its arguments.
    pub program: Option<String>,
    /// The simulator build's tag (`dev-6b244a5`, `v3.2.1`).
    pub simulator: Option<String>,
    /// A hash of the sources the simulator was built from (scripts/lib.sh,
    /// `gpgpusim_sources_key`): runs with the same value ran the same
    /// simulator and codecs.
    pub simulator_sources: Option<String>,
    /// The GPU simulated (`gtx580`, `qv100`, `rtx3070`: [`crate::gpu::Gpu`]);
    /// a run.json without it predates the choice and ran the GTX580.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<Gpu>,
    /// The program's exit status under the simulator.
    pub exit_status: Option<i32>,
    /// The last `gpu_tot_sim_cycle` of `sim.log`: a committed run keeps its
    /// cycles without its large log.
    pub cycles: Option<u64>,
    /// Wall-clock and CPU time (user + system) of the simulation.
    pub wall_seconds: Option<f64>,
    pub cpu_seconds: Option<f64>,
    /// DRAM data-bus busy cycles over DRAM cycles, averaged over channels
    /// (`total.dram_bandwidth_utilization` of `stats.json`).
    pub dram_bandwidth_utilization: Option<f64>,
    /// Exit status 0, the expected output seen and, for a benchmark, its
    /// output check passed.
    pub output_ok: Option<bool>,
    /// Kernels the program launched and finished (`kernel_launch_uid` lines
    /// of `sim.log`): a speedup compares runs of the same work only when
    /// this equals the `none` run's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_launches: Option<u64>,
    /// Each kernel's `[DRAM cycles, read and write commands]`, summed over
    /// the channels ([`crate::sim_log::kernel_summary`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_dram: Option<Vec<[u64; 2]>>,
    /// tRRD in DRAM command cycles (`-gpgpu_dram_timing_opt` of `sim.log`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dram_rrd: Option<u64>,
    /// The run's mean memory fetch latency in core cycles and its DRAM-full
    /// stalls ([`crate::sim_log::MemoryWait`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetch_latency_cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dram_full_stalls: Option<u64>,
    /// The mean latency of a reply through the interconnect back to the
    /// cores, in core cycles, and the cycles replies waited to enter it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_latency_cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_stalls: Option<u64>,
}

impl RunJson {
    /// The `run.json` of the run in `dir`, or every field `None` without one.
    /// A field of the wrong type is an error naming file and field.
    pub fn read(dir: &Path) -> Result<Self, RunError> {
        let path = dir.join(RUN_JSON);
        if !path.exists() {
            return Ok(Self::default());
        }
        let run = read_json(&path)?;
        if !run.is_object() {
            return Err(RunError::malformed(format!("{}: not a JSON object", path.display())));
        }
        let text = |v: &Value| v.as_str().map(str::to_string);
        let exit_status = |v: &Value| v.as_i64().and_then(|n| i32::try_from(n).ok());
        Ok(Self {
            codec: optional(&run, "codec", &path, text, "a string")?,
            program: optional(&run, "program", &path, text, "a string")?,
            simulator: optional(&run, "simulator", &path, text, "a string")?,
            simulator_sources: optional(&run, "simulator_sources", &path, text, "a string")?,
            gpu: optional(&run, "gpu", &path, |v| v.as_str()?.parse().ok(), "a GPU (gtx580, qv100, rtx3070)")?,
            exit_status: optional(&run, "exit_status", &path, exit_status, "an exit status")?,
            cycles: optional(&run, "cycles", &path, Value::as_u64, "a non-negative integer")?,
            wall_seconds: optional(&run, "wall_seconds", &path, Value::as_f64, "a number")?,
            cpu_seconds: optional(&run, "cpu_seconds", &path, Value::as_f64, "a number")?,
            dram_bandwidth_utilization: optional(&run, "dram_bandwidth_utilization", &path, Value::as_f64, "a number")?,
            output_ok: optional(&run, "output_ok", &path, Value::as_bool, "true or false")?,
            kernel_launches: optional(&run, "kernel_launches", &path, Value::as_u64, "a count")?,
            kernel_dram: optional(&run, "kernel_dram", &path, kernel_dram_of_json, "[[dram_cycles, commands], ...]")?,
            dram_rrd: optional(&run, "dram_rrd", &path, Value::as_u64, "a count")?,
            fetch_latency_cycles: optional(&run, "fetch_latency_cycles", &path, Value::as_u64, "a count")?,
            dram_full_stalls: optional(&run, "dram_full_stalls", &path, Value::as_u64, "a count")?,
            reply_latency_cycles: optional(&run, "reply_latency_cycles", &path, Value::as_u64, "a count")?,
            reply_stalls: optional(&run, "reply_stalls", &path, Value::as_u64, "a count")?,
        })
    }

    /// Writes `dir/run.json` (through a temporary file: a reader never sees
    /// half of one).
    pub fn write(&self, dir: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| format!("{RUN_JSON}: {e}"))?;
        write_atomically(&dir.join(RUN_JSON), (text + "\n").as_bytes())
    }

    /// Records in `dir/run.json` that the run's output is wrong (a benchmark's
    /// output check failed after the simulation), keeping every other field
    /// as it is, fields of other tools included.
    pub fn mark_output_wrong(dir: &Path) -> Result<(), String> {
        Self::set_field(dir, "output_ok", Value::Bool(false))
    }

    /// Records a lossy run's output error in `dir/run.json` (field
    /// [`output_error::FIELD`]), with what the exact output came from.
    pub fn record_output_error(dir: &Path, error: &OutputError, exact: &str) -> Result<(), String> {
        let field = output_error::FIELD;
        let mut value = serde_json::to_value(error).map_err(|e| format!("{field}: {e}"))?;
        if let Some(object) = value.as_object_mut() {
            object.insert("exact".into(), Value::String(exact.to_string()));
        }
        Self::set_field(dir, field, value)
    }

    /// Sets one field of `dir/run.json` (added at the end if new), keeping
    /// every other field as it is, fields of other tools included: what a
    /// step after the simulation learns (the output check, the output error).
    pub fn set_field(dir: &Path, key: &str, value: Value) -> Result<(), String> {
        let path = dir.join(RUN_JSON);
        let mut run = read_json(&path)?;
        let object = run.as_object_mut().ok_or_else(|| format!("{}: not a JSON object", path.display()))?;
        object.insert(key.into(), value);
        let text = serde_json::to_string_pretty(&run).map_err(|e| format!("{}: {e}", path.display()))?;
        write_atomically(&path, (text + "\n").as_bytes())
    }
}

/// `run.json`'s `kernel_dram`: `[dram_cycles, commands]` per kernel.
fn kernel_dram_of_json(value: &Value) -> Option<Vec<[u64; 2]>> {
    value
        .as_array()?
        .iter()
        .map(|kernel| match kernel.as_array()?.as_slice() {
            [cycles, commands] => Some([cycles.as_u64()?, commands.as_u64()?]),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("memzip-run-json-{name}-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn writes_every_field_and_reads_it_back() {
        let dir = temp_dir("round-trip");
        let run = RunJson {
            codec: Some("mag_bdi".into()),
            program: Some("rodinia/bfs tiny".into()),
            simulator: Some("dev-6b244a5".into()),
            simulator_sources: Some("548355b13d250e34".into()),
            exit_status: Some(0),
            cycles: Some(1727821),
            wall_seconds: Some(406.66),
            cpu_seconds: Some(404.89),
            dram_bandwidth_utilization: Some(0.35008994987591235),
            output_ok: Some(true),
            ..RunJson::default()
        };
        run.write(&dir).unwrap();
        let text = fs::read_to_string(dir.join(RUN_JSON)).unwrap();
        assert_eq!(
            text,
            "{\n  \"codec\": \"mag_bdi\",\n  \"program\": \"rodinia/bfs tiny\",\n  \"simulator\": \"dev-6b244a5\",\n  \
             \"simulator_sources\": \"548355b13d250e34\",\n  \"exit_status\": 0,\n  \"cycles\": 1727821,\n  \
             \"wall_seconds\": 406.66,\n  \"cpu_seconds\": 404.89,\n  \"dram_bandwidth_utilization\": 0.35008994987591235,\n  \
             \"output_ok\": true\n}\n",
            "the layout scripts/sim-run.sh wrote"
        );
        assert_eq!(RunJson::read(&dir).unwrap(), run);
        RunJson::mark_output_wrong(&dir).unwrap();
        assert_eq!(RunJson::read(&dir).unwrap(), RunJson { output_ok: Some(false), ..run.clone() });
        // The kernels, when the log named them, follow the fields above.
        let kernels = RunJson {
            kernel_launches: Some(2),
            kernel_dram: Some(vec![[2000, 700], [3000, 1200]]),
            dram_rrd: Some(12),
            fetch_latency_cycles: Some(346),
            dram_full_stalls: Some(229),
            reply_latency_cycles: Some(23),
            reply_stalls: Some(87_495),
            ..run
        };
        kernels.write(&dir).unwrap();
        let text = fs::read_to_string(dir.join(RUN_JSON)).unwrap();
        assert!(text.ends_with("\"kernel_launches\": 2,\n  \"kernel_dram\": [\n    [\n      2000,\n      700\n    ],\n    [\n      3000,\n      1200\n    ]\n  ],\n  \"dram_rrd\": 12,\n  \"fetch_latency_cycles\": 346,\n  \"dram_full_stalls\": 229,\n  \"reply_latency_cycles\": 23,\n  \"reply_stalls\": 87495\n}\n"), "{text}");
        assert_eq!(RunJson::read(&dir).unwrap(), kernels);
        fs::write(dir.join(RUN_JSON), "{\"kernel_dram\": [[1, 2, 3]]}").unwrap();
        let err = RunJson::read(&dir).unwrap_err().to_string();
        assert!(err.ends_with("field `kernel_dram` is not [[dram_cycles, commands], ...]"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_without_cycles_writes_null_and_a_field_of_the_wrong_type_is_named() {
        let dir = temp_dir("null");
        RunJson { codec: Some("none".into()), ..RunJson::default() }.write(&dir).unwrap();
        let text = fs::read_to_string(dir.join(RUN_JSON)).unwrap();
        assert!(text.contains("\"cycles\": null"), "{text}");
        fs::write(dir.join(RUN_JSON), "{\"exit_status\": \"0\"}").unwrap();
        let err = RunJson::read(&dir).unwrap_err().to_string();
        assert!(err.ends_with("run.json: field `exit_status` is not an exit status"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
