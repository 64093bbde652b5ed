//! A sweep's grid: the spec (JSON, see [`crate::sweep`]) and the runs it
//! expands to, in a fixed order, each checked before anything is launched.

use std::fs;
use std::path::Path;

use memzip::codec::registry;
use memzip::codec::spec::CodecSpec;
use memzip::Geometry;
use serde::Deserialize;

use crate::gpu::Gpu;
use crate::manifest::benchmark_presets;
use crate::run::{RunRecord, TIMING_MODEL};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub runs: Vec<Entry>,
}

impl Spec {
    /// The spec with `gpu` as the GPU of every entry that lists none
    /// (`memzip sweep --gpu`: a spec's grid on another GPU).
    pub fn with_default_gpu(mut self, gpu: Gpu) -> Self {
        for entry in self.runs.iter_mut().filter(|entry| entry.gpus.is_empty()) {
            entry.gpus = vec![gpu.name().to_string()];
        }
        self
    }
}

/// One program or benchmark of the grid.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Names the program in run ids: letters, digits, `_`, `-`, `.`.
    /// Optional for a benchmark (default: the benchmark, `/` as `-`).
    #[serde(default)]
    pub name: Option<String>,
    /// The command line; `{repo}` stands for the repository root.
    #[serde(default)]
    pub argv: Vec<String>,
    /// A benchmark of `benchmarks/` (`suite/name` or a unique `name`).
    #[serde(default)]
    pub benchmark: Option<String>,
    /// The benchmark's presets (default: tiny).
    #[serde(default)]
    pub presets: Vec<String>,
    pub codecs: Vec<String>,
    /// Simulator option lines per configuration; none: one run per codec.
    #[serde(default)]
    pub option_sets: Vec<Vec<String>>,
    /// The GPUs to simulate ([`Gpu`] names; default: the GTX580 alone).
    #[serde(default)]
    pub gpus: Vec<String>,
    /// A regex the program's output must match.
    #[serde(default)]
    pub expect: Option<String>,
}

/// What a run executes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A command line under the simulator.
    Program(Vec<String>),
    /// A benchmark of `benchmarks/` at a preset.
    Benchmark { name: String, preset: String },
}

/// One simulation of the expanded grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedRun {
    /// Directory name: `<name>[-<preset>][-<gpu>]-<codec>[-o<k>]`, the GPU
    /// only when it is not the GTX580 (a grid made before there was a
    /// choice keeps its names, and resumes).
    pub id: String,
    /// The id's `<name>[-<preset>]`.
    pub name: String,
    pub codec: String,
    pub options: Vec<String>,
    /// The GPU simulated (the runner's `--gpu`, given when not the GTX580).
    pub gpu: Gpu,
    pub target: Target,
    pub expect: Option<String>,
    /// What the entry's name says it varies: the text after the first `.`
    /// (`mdc4k` of `rodinia-bfs.mdc4k`), for runs whose codec string is the
    /// same as another's (controller options).
    pub variant: Option<String>,
}

impl PlannedRun {
    /// The record a finished run of this keeps (`sweep.json`).
    /// The simulator that runs it: MGPUSim for a multi-GPU benchmark
    /// (`mgpusim/...`, its version pinned by mgpusim-plugin/go.mod), else the
    /// gpgpu-sim version the runner uses (`MEMZIP_GPGPUSIM_VERSION`, default dev).
    fn simulator(&self) -> String {
        match &self.target {
            Target::Benchmark { name, .. } if name.starts_with("mgpusim/") => "mgpusim".into(),
            _ => std::env::var("MEMZIP_GPGPUSIM_VERSION").unwrap_or_else(|_| "dev".into()),
        }
    }

    pub fn record(&self) -> RunRecord {
        let (benchmark, preset, program) = match &self.target {
            Target::Benchmark { name, preset } => (Some(name.clone()), Some(preset.clone()), None),
            Target::Program(_) => (None, None, Some(self.name.clone())),
        };
        RunRecord {
            id: self.id.clone(),
            variant: self.variant.clone(),
            benchmark,
            preset,
            program,
            codec: self.codec.clone(),
            options: self.options.clone(),
            gpu: self.gpu,
            simulator: self.simulator(),
            timing_model: TIMING_MODEL,
            reused_from: None,
        }
    }
}

/// A codec string as it appears in run ids (`mag_bdi:bases=8+4+2` -> `mag_bdi_bases_8_4_2`).
fn codec_id(codec: &str) -> String {
    codec.replace([':', '=', ',', '+', '/'], "_")
}

pub fn load_spec(path: &Path) -> Result<Spec, String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn check_name(what: &str, name: &str) -> Result<(), String> {
    let ok = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c));
    if ok && !name.starts_with('.') {
        Ok(())
    } else {
        Err(format!("{what} '{name}': use letters, digits, '_', '-' and '.' (it names a directory)"))
    }
}

/// What an entry runs, each with the id prefix of its runs.
fn entry_targets(entry: &Entry, repo: &Path) -> Result<Vec<(String, Target)>, String> {
    match (&entry.benchmark, entry.argv.is_empty()) {
        (None, false) => {
            let name = entry.name.clone().ok_or("an entry with argv needs a name")?;
            let argv = entry.argv.iter().map(|a| a.replace("{repo}", &repo.to_string_lossy())).collect();
            if !entry.presets.is_empty() {
                return Err(format!("run '{name}': presets belong to benchmark entries, not argv"));
            }
            Ok(vec![(name, Target::Program(argv))])
        }
        (Some(benchmark), true) => {
            let name = entry.name.clone().unwrap_or_else(|| benchmark.replace('/', "-"));
            let presets = if entry.presets.is_empty() { vec!["tiny".to_string()] } else { entry.presets.clone() };
            Ok(presets
                .into_iter()
                .map(|preset| {
                    let target = Target::Benchmark { name: benchmark.clone(), preset: preset.clone() };
                    (format!("{name}-{preset}"), target)
                })
                .collect())
        }
        (Some(benchmark), false) => Err(format!("entry '{benchmark}': give either argv or benchmark, not both")),
        (None, true) => Err(format!(
            "entry '{}': give argv (a command line) or benchmark (see memzip bench list)",
            entry.name.as_deref().unwrap_or("(unnamed)")
        )),
    }
}

/// An entry's GPUs (default: the GTX580 alone); an unknown name is an error
/// naming the entry and the valid names.
fn entry_gpus(entry: &Entry, prefix: &str) -> Result<Vec<Gpu>, String> {
    if entry.gpus.is_empty() {
        return Ok(vec![Gpu::default()]);
    }
    entry
        .gpus
        .iter()
        .map(|name| {
            name.parse().map_err(|_| {
                format!("run '{prefix}': gpus: '{name}' is not a GPU memzip simulates (valid: {})", Gpu::names())
            })
        })
        .collect()
}

/// The grid in a fixed order: entries, presets, GPUs, codecs, option sets.
pub fn expand(spec: &Spec, repo: &Path) -> Result<Vec<PlannedRun>, String> {
    let mut runs = Vec::new();
    for entry in &spec.runs {
        let variant = entry.name.as_deref().and_then(|n| n.split_once('.')).map(|(_, v)| v.to_string());
        for (prefix, target) in entry_targets(entry, repo)? {
            check_name("run name", &prefix)?;
            if entry.codecs.is_empty() {
                return Err(format!("run '{prefix}': codecs must not be empty"));
            }
            let sets: Vec<Vec<String>> =
                if entry.option_sets.is_empty() { vec![Vec::new()] } else { entry.option_sets.clone() };
            for gpu in entry_gpus(entry, &prefix)? {
                let gpu_id = if gpu.is_default() { String::new() } else { format!("-{gpu}") };
                for codec in &entry.codecs {
                    // A codec may carry knobs (`mag_bdi:bases=8+4+2`): keep its id readable.
                    let codec_id = codec_id(codec);
                    check_name("codec", &codec_id)?;
                    for (k, options) in sets.iter().enumerate() {
                        let suffix = if sets.len() > 1 { format!("-o{k}") } else { String::new() };
                        runs.push(PlannedRun {
                            id: format!("{prefix}{gpu_id}-{codec_id}{suffix}"),
                            name: prefix.clone(),
                            codec: codec.clone(),
                            options: options.clone(),
                            gpu,
                            target: target.clone(),
                            expect: entry.expect.clone(),
                            variant: variant.clone(),
                        });
                    }
                }
            }
        }
    }
    let mut ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    if let Some(pair) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("two runs would both be named '{}': give the entries different names", pair[0]));
    }
    Ok(runs)
}

/// Checks before launching what would make runs fail at once: every codec
/// must build (memzip's registry) and every benchmark must have a manifest
/// in `repo/benchmarks/` ([`crate::manifest`]) with the preset.
pub fn validate(runs: &[PlannedRun], repo: &Path) -> Result<(), String> {
    for run in runs {
        let mut spec = CodecSpec::parse(&run.codec, Geometry::default())
            .map_err(|e| format!("run {}: codec '{}': {e}", run.id, run.codec))?;
        if spec.raw("sampling") == Some("offline") && spec.table.is_none() {
            // The table comes with the run's -memzip_e2mc_sampling offline:<table|auto>
            // (the simulator hands it to the codec): check that line is there, and the
            // rest of the spec as if it sampled online.
            if !run.options.iter().any(|line| offline_sampling_line(line)) {
                return Err(format!(
                    "run {}: codec '{}' samples offline but no option line gives its table \
                     (-memzip_e2mc_sampling offline:<table|auto>)",
                    run.id, run.codec
                ));
            }
            spec.set("sampling", "online").map_err(|e| format!("run {}: codec '{}': {e}", run.id, run.codec))?;
        }
        registry::build(&spec).map_err(|e| format!("run {}: codec '{}': {e}", run.id, run.codec))?;
        check_gpu(run)?;
        if let Target::Benchmark { name, preset } = &run.target {
            let presets = benchmark_presets(repo, name).map_err(|e| format!("run {}: {e}", run.id))?;
            if !presets.contains(preset) {
                return Err(format!(
                    "run {}: benchmark '{name}' has presets {}, not '{preset}'",
                    run.id,
                    presets.join(", ")
                ));
            }
        }
    }
    Ok(())
}

/// Rejects a run on a GPU its simulator cannot simulate: v3.2.1 has the
/// GTX580 alone, and MGPUSim's GPUs are not gpgpu-sim's.
fn check_gpu(run: &PlannedRun) -> Result<(), String> {
    match run.simulator().as_str() {
        _ if run.gpu.is_default() => Ok(()),
        "mgpusim" => Err(format!("run {}: gpu {}: a multi-GPU benchmark runs on MGPUSim's GPUs", run.id, run.gpu)),
        version => run.gpu.check_version(version).map_err(|e| format!("run {}: {e}", run.id)),
    }
}

/// Whether an option line is `-memzip_e2mc_sampling offline:<table|auto>`.
fn offline_sampling_line(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("-memzip_e2mc_sampling") && words.next().is_some_and(|v| v.starts_with("offline:"))
}
