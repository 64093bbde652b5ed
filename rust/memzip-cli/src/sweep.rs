//! `memzip sweep`: a study grid (programs or benchmarks x codecs x option
//! sets) run locally in parallel (a progress bar on a terminal, one line per
//! finished run), one run directory each, resumable; or on Slurm (`slurm`).
//!
//! The spec is JSON:
//! ```json
//! {"runs": [{"name": "ints", "argv": ["{repo}/bin/patterns", "ints", "262144"],
//!            "codecs": ["none", "mag_bdi"],
//!            "option_sets": [["-memzip_verify 1"], ["-memzip_verify 1", "-memzip_mdc_bytes 4096"]],
//!            "expect": "^PASS"},
//!           {"benchmark": "rodinia/bfs", "presets": ["tiny", "small"], "codecs": ["none", "mag_bdi"]}]}
//! ```
//! An entry runs either a command line (`argv`, named by `name`) or a
//! benchmark of `benchmarks/` at one or more presets (`name` defaults to the
//! benchmark with `/` as `-`; run ids add the preset). Each run is handed to
//! the runner as `--codec C --out DIR [--set LINE]... [--expect RE]`, then
//! `-- ARGV...` for a command line (default runner `scripts/sim-run.sh`) or
//! `--benchmark NAME --preset P` for a benchmark (default runner
//! `scripts/bench.sh run`, which builds, makes the input and checks the
//! output). A run is written into `OUT/.tmp-<id>` and renamed to `OUT/<id>`
//! only when it succeeded, so a directory named after a run is always
//! complete: a rerun skips those (resume after a kill loses nothing) and
//! retries failures, which are kept in `OUT/<id>.failed/` with the runner's
//! output.
//!
//! A sweep owns its output directory while it runs (`OUT/.sweep.lock`, its
//! pid): a second sweep into it stops with one line instead of deleting the
//! first one's `.tmp-<id>` directories under its simulations. Each runner
//! runs under a small guard ([`GUARD`]) that kills the runner's process group
//! when the sweep goes away, even by SIGKILL: no simulation outlives it.
//! The same guard stops a run that exceeds `--timeout` (a simulation that
//! never ends, as lonestar/mst's zero-block launch on v3.2.1, would hold its
//! worker forever): the run fails with that reason and the sweep goes on.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use memzip::codec::registry::{self, CodecSpec};
use memzip::Geometry;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub runs: Vec<Entry>,
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
pub struct Run {
    /// Directory name: `<name>[-<preset>]-<codec>[-o<k>]`.
    pub id: String,
    /// The id's `<name>[-<preset>]`.
    pub name: String,
    pub codec: String,
    pub options: Vec<String>,
    pub target: Target,
    pub expect: Option<String>,
    /// What the entry's name says it varies: the text after the first `.`
    /// (`mdc4k` of `rodinia-bfs.mdc4k`), for runs whose codec string is the
    /// same as another's (controller options).
    pub variant: Option<String>,
}

/// What a finished run is, written as `sweep.json` into its directory: the
/// report tells variants apart by it, and a later sweep (`--reuse`) finds
/// runs of the same configuration by it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// A benchmark run's benchmark and preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// A command-line run's id prefix (its argv holds this machine's paths).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    pub codec: String,
    pub options: Vec<String>,
    /// The simulator version the runner used (`MEMZIP_GPGPUSIM_VERSION`, default dev).
    pub simulator: String,
    /// The revision of memzip's timing in the simulator the run was made
    /// with ([`TIMING_MODEL`]); records written before there were revisions
    /// lack the field and are revision 1.
    #[serde(default = "first_timing_model")]
    pub timing_model: u32,
    /// `<results dir>/<id>` of the run this one is a copy of (`--reuse`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reused_from: Option<String>,
}

/// memzip's timing model in the simulator (the hooks in `cpp_shim` and the
/// controller's latencies), raised whenever a change alters what a codec run
/// simulates, so that `--reuse` does not copy runs of an older model:
/// 1. a request's added cycles (compression of writes, metadata of reads)
///    were appended to gpgpu-sim's DRAM latency queue, which is popped only
///    from its front: a compressing write held up every later request;
/// 2. that queue, and the replies' decompression queue, keep ready-cycle
///    order (`memzip_latency_queue_insert`): stores and raw replies no
///    longer wait behind compressions and decompressions.
pub const TIMING_MODEL: u32 = 2;

fn first_timing_model() -> u32 {
    1
}

/// The option that only records the blocks: runs that differ in it alone
/// simulate the same.
const TRACE_OPTION: &str = "-memzip_trace ";

impl RunRecord {
    pub fn of(run: &Run) -> Self {
        let (benchmark, preset, program) = match &run.target {
            Target::Benchmark { name, preset } => (Some(name.clone()), Some(preset.clone()), None),
            Target::Program(_) => (None, None, Some(run.name.clone())),
        };
        RunRecord {
            id: run.id.clone(),
            variant: run.variant.clone(),
            benchmark,
            preset,
            program,
            codec: run.codec.clone(),
            options: run.options.clone(),
            simulator: std::env::var("MEMZIP_GPGPUSIM_VERSION").unwrap_or_else(|_| "dev".into()),
            timing_model: TIMING_MODEL,
            reused_from: None,
        }
    }

    /// Whether a run of `other` simulates exactly what a run of `self` would:
    /// the same benchmark, preset, codec string, simulator and option lines
    /// in order, less `-memzip_trace`, and the same timing model, except for
    /// `none`, to which memzip adds no cycles in any revision (tests/sim:
    /// none equals the unpatched simulator). Only benchmark runs (a command
    /// line's record does not hold the command).
    pub fn same_configuration(&self, other: &RunRecord) -> bool {
        let simulated = |r: &RunRecord| -> Vec<String> {
            r.options.iter().filter(|line| !line.starts_with(TRACE_OPTION)).cloned().collect()
        };
        self.benchmark.is_some()
            && self.benchmark == other.benchmark
            && self.preset == other.preset
            && self.codec == other.codec
            && self.simulator == other.simulator
            && (self.timing_model == other.timing_model || !self.is_timed_by_memzip())
            && simulated(self) == simulated(other)
    }

    /// A codec run made with an older timing model than this memzip's: its
    /// cycles do not compare with current runs' (a `none` run's do).
    pub fn is_superseded(&self) -> bool {
        self.is_timed_by_memzip() && self.timing_model < TIMING_MODEL
    }

    /// Whether memzip adds cycles to this run: not to `none`, under any
    /// timing model (tests/sim: none equals the unpatched simulator).
    fn is_timed_by_memzip(&self) -> bool {
        self.codec != "none"
    }

    fn write(&self, dir: &Path) -> Result<(), String> {
        let path = dir.join(RECORD_FILE);
        let text = serde_json::to_string_pretty(self).map_err(|e| format!("{}: {e}", path.display()))?;
        fs::write(&path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The record of the run in `dir`, if it has one.
    pub fn read(dir: &Path) -> Result<Option<Self>, String> {
        let path = dir.join(RECORD_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        serde_json::from_str(&text).map(Some).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// The file of a run directory that holds its [`RunRecord`].
pub const RECORD_FILE: &str = "sweep.json";

/// A codec string as it appears in run ids (`mag_bdi:bases=8+4+2` -> `mag_bdi_bases_8_4_2`).
fn codec_id(codec: &str) -> String {
    codec.replace([':', '=', ',', '+', '/'], "_")
}

/// The commands that execute runs: one for command lines, one for benchmarks,
/// and how long a run may take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runners {
    pub program: Vec<String>,
    pub benchmark: Vec<String>,
    /// A run still going after this long is stopped and fails (`--timeout`).
    pub timeout: Option<Duration>,
}

impl Runners {
    /// The repository's scripts: `scripts/sim-run.sh` and `scripts/bench.sh run`.
    pub fn of_repo(repo: &Path) -> Self {
        let script = |name: &str| repo.join("scripts").join(name).to_string_lossy().into_owned();
        Runners {
            program: vec!["bash".into(), script("sim-run.sh")],
            benchmark: vec!["bash".into(), script("bench.sh"), "run".into()],
            timeout: None,
        }
    }

    /// One command for both kinds (e.g. a test's fake runner).
    pub fn single(command: Vec<String>) -> Self {
        Runners { program: command.clone(), benchmark: command, timeout: None }
    }

    /// The same runners with a time limit per run.
    pub fn with_timeout(self, timeout: Option<Duration>) -> Self {
        Runners { timeout, ..self }
    }
}

/// What a sweep did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Runs already complete before this sweep, or completed meanwhile by
    /// another sweep into another directory and copied in (a run whose
    /// directory exists when its turn comes is not run again).
    pub skipped: usize,
    pub succeeded: usize,
    /// Ids of runs that failed (details in `<id>.failed/`).
    pub failed: Vec<String>,
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
            "entry '{}': give argv (a command line) or benchmark (see scripts/bench.sh list)",
            entry.name.as_deref().unwrap_or("(unnamed)")
        )),
    }
}

/// The grid in a fixed order: entries, presets, codecs, option sets.
pub fn expand(spec: &Spec, repo: &Path) -> Result<Vec<Run>, String> {
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
            for codec in &entry.codecs {
                // A codec may carry knobs (`mag_bdi:bases=8+4+2`): keep its id readable.
                let codec_id = codec_id(codec);
                check_name("codec", &codec_id)?;
                for (k, options) in sets.iter().enumerate() {
                    let suffix = if sets.len() > 1 { format!("-o{k}") } else { String::new() };
                    runs.push(Run {
                        id: format!("{prefix}-{codec_id}{suffix}"),
                        name: prefix.clone(),
                        codec: codec.clone(),
                        options: options.clone(),
                        target: target.clone(),
                        expect: entry.expect.clone(),
                        variant: variant.clone(),
                    });
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

fn runner_command(runners: &Runners, run: &Run, dir: &Path) -> Command {
    let runner = match run.target {
        Target::Program(_) => &runners.program,
        Target::Benchmark { .. } => &runners.benchmark,
    };
    let mut command = Command::new("bash");
    command.arg("-c").arg(GUARD).arg("memzip-sweep-guard");
    command.args(runner).arg("--codec").arg(&run.codec).arg("--out").arg(dir);
    for line in &run.options {
        command.arg("--set").arg(line);
    }
    if let Some(expect) = &run.expect {
        command.arg("--expect").arg(expect);
    }
    match &run.target {
        Target::Program(argv) => command.arg("--").args(argv),
        Target::Benchmark { name, preset } => command.arg("--benchmark").arg(name).arg("--preset").arg(preset),
    };
    command
}

/// Checks before launching what would make runs fail at once: every codec
/// must build (memzip's registry) and every benchmark must have a manifest
/// in `repo/benchmarks/` (the rule of `scripts/bench.sh`) with the preset.
pub fn validate(runs: &[Run], repo: &Path) -> Result<(), String> {
    for run in runs {
        let mut spec = CodecSpec::parse(&run.codec, Geometry::default())
            .map_err(|e| format!("run {}: codec '{}': {e}", run.id, run.codec))?;
        if spec.raw("sampling") == Some("offline") && spec.table_json.is_none() {
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
            spec.set("sampling", "online");
        }
        registry::build(&spec).map_err(|e| format!("run {}: codec '{}': {e}", run.id, run.codec))?;
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

/// Whether an option line is `-memzip_e2mc_sampling offline:<table|auto>`.
fn offline_sampling_line(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("-memzip_e2mc_sampling") && words.next().is_some_and(|v| v.starts_with("offline:"))
}

/// The presets of a benchmark: `suite/name`, or a `name` only one suite has.
fn benchmark_presets(repo: &Path, name: &str) -> Result<Vec<String>, String> {
    let benchmarks = repo.join("benchmarks");
    let manifests: Vec<PathBuf> = if name.contains('/') {
        let path = benchmarks.join(format!("{name}.env"));
        if path.is_file() {
            vec![path]
        } else {
            Vec::new()
        }
    } else {
        let mut found: Vec<PathBuf> = fs::read_dir(&benchmarks)
            .map(|suites| {
                suites.flatten().map(|s| s.path().join(format!("{name}.env"))).filter(|p| p.is_file()).collect()
            })
            .unwrap_or_default();
        found.sort();
        found
    };
    let manifest = match manifests.as_slice() {
        [] => return Err(format!("unknown benchmark '{name}' (see scripts/bench.sh list)")),
        [one] => one,
        _ => return Err(format!("benchmark '{name}' is in several suites: name it as suite/{name}")),
    };
    let text = fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let presets = text
        .lines()
        .find_map(|line| line.trim().strip_prefix("PRESETS="))
        .map(|value| value.trim_matches(['"', '\'']).split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    Ok(presets)
}

/// The start of the reason of a run stopped by `--timeout`.
const TIMED_OUT: &str = "timed out after";

/// One line on why a run failed: the timeout if it was stopped, else the
/// first error line of the runner's output, else its last line, else the
/// exit status.
pub fn failure_cause(out: &Path, id: &str) -> String {
    let failed = out.join(format!("{id}.failed"));
    let reason = fs::read_to_string(failed.join("reason.txt")).unwrap_or_default();
    if reason.starts_with(TIMED_OUT) {
        return reason.trim().to_string();
    }
    let log = fs::read_to_string(failed.join("runner.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let line = lines
        .iter()
        .find(|l| l.to_ascii_lowercase().contains("error"))
        .or(lines.last())
        .map(|l| l.to_string())
        .unwrap_or_else(|| reason.trim().to_string());
    line.chars().take(300).collect()
}

/// The runs of `runs` without a complete result in `out` yet.
pub fn pending<'a>(runs: &'a [Run], out: &Path) -> Vec<&'a Run> {
    runs.iter().filter(|r| !has_result(out, &r.id)).collect()
}

/// Whether `out` holds a current result of the run `id`: its directory, not
/// made by an older timing model (a superseded codec run is run again and
/// replaced).
pub fn has_result(out: &Path, id: &str) -> bool {
    let dir = out.join(id);
    dir.is_dir() && !matches!(RunRecord::read(&dir), Ok(Some(record)) if record.is_superseded())
}

/// Runs one simulation; Ok(false) when it failed (recorded in `<id>.failed/`).
/// Every path to a result goes through here: local sweeps, and each task of
/// a Slurm array (`--only-run`).
pub fn run_one(runners: &Runners, run: &Run, out: &Path) -> Result<bool, String> {
    let done = out.join(&run.id);
    let tmp = tmp_dir(out, &run.id);
    let failed = out.join(format!("{}.failed", run.id));
    for stale in [&tmp, &failed] {
        if stale.exists() {
            fs::remove_dir_all(stale).map_err(|e| format!("{}: {e}", stale.display()))?;
        }
    }
    // The runner's output goes to a file beside the run (the runner empties its --out).
    let log_path = out.join(format!(".tmp-{}.log", run.id));
    let (success, reason) = run_guarded(runner_command(runners, run, &tmp), &log_path, runners.timeout)?;
    let log = fs::read(&log_path).unwrap_or_default();
    let _ = fs::remove_file(&log_path);
    if success && tmp.is_dir() {
        RunRecord::of(run).write(&tmp)?;
        install(&tmp, &done)?;
        return Ok(true);
    }
    if tmp.is_dir() {
        fs::rename(&tmp, &failed).map_err(|e| format!("{}: {e}", failed.display()))?;
    } else {
        fs::create_dir_all(&failed).map_err(|e| format!("{}: {e}", failed.display()))?;
    }
    let reason = if success { "runner succeeded but wrote no run directory".to_string() } else { reason };
    fs::write(failed.join("runner.log"), log).map_err(|e| format!("{}: {e}", failed.display()))?;
    fs::write(failed.join("reason.txt"), reason + "\n").map_err(|e| format!("{}: {e}", failed.display()))?;
    Ok(false)
}

/// Runs a guarded runner with its output in `log`; whether it succeeded, and
/// why not. A runner still going after `timeout` is stopped by its guard.
fn run_guarded(mut command: Command, log: &Path, timeout: Option<Duration>) -> Result<(bool, String), String> {
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

/// The finished runs with a record in each of `dirs` (results directories).
pub fn recorded_runs(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, RunRecord)>, String> {
    let mut found = Vec::new();
    for dir in dirs {
        let entries = fs::read_dir(dir).map_err(|e| format!("--reuse {}: {e}", dir.display()))?;
        let mut runs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| is_finished_run(p)).collect();
        runs.sort();
        for run in runs {
            if let Some(record) = RunRecord::read(&run)? {
                found.push((run, record));
            }
        }
    }
    Ok(found)
}

/// Makes the complete run `tmp` the result `done`, replacing a superseded
/// result there (see [`has_result`]).
fn install(tmp: &Path, done: &Path) -> Result<(), String> {
    if done.is_dir() {
        fs::remove_dir_all(done).map_err(|e| format!("{}: {e}", done.display()))?;
    }
    fs::rename(tmp, done).map_err(|e| format!("{}: {e}", done.display()))
}

/// Where a run is written until it is complete (then renamed to `OUT/<id>`).
pub(crate) fn tmp_dir(out: &Path, id: &str) -> PathBuf {
    out.join(format!(".tmp-{id}"))
}

/// A run directory a sweep finished (not `.tmp-*`, not `*.failed`).
pub fn is_finished_run(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    path.is_dir() && !name.starts_with('.') && !name.ends_with(".failed")
}

/// Fills each run of `runs` missing in `out` for which `sources` hold a
/// finished run of the same configuration ([`RunRecord::same_configuration`])
/// with a copy of it, recorded
/// under this run's id and variant with `reused_from`: a sensitivity sweep's
/// default point is the study's run, not a second simulation of it.
/// Returns each reused run's id and source.
pub fn reuse(runs: &[Run], out: &Path, sources: &[(PathBuf, RunRecord)]) -> Result<Vec<(String, PathBuf)>, String> {
    let mut reused = Vec::new();
    for run in pending(runs, out) {
        let mut record = RunRecord::of(run);
        let Some((source, _)) = sources.iter().find(|(_, r)| record.same_configuration(r)) else { continue };
        let tmp = tmp_dir(out, &run.id);
        if tmp.exists() {
            fs::remove_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
        }
        copy_tree(source, &tmp)?;
        let results = source.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned());
        let source_id = source.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        record.reused_from = Some(format!("{}/{source_id}", results.unwrap_or_default()));
        record.write(&tmp)?;
        let done = out.join(&run.id);
        install(&tmp, &done)?;
        reused.push((run.id.clone(), source.clone()));
    }
    Ok(reused)
}

/// Copies the directory `from` to `to` (new). Copies, not hard links: a later
/// write into a file of either run (`bench.sh analyze`, a new record) must
/// not change the other.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?.flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if src.is_dir() {
            copy_tree(&src, &dst)?;
        } else {
            fs::copy(&src, &dst).map_err(|e| format!("{} -> {}: {e}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}

/// Writes the record of each run of `runs` finished in `out` without one
/// (made before sweeps wrote records), from the spec it was run from; returns
/// how many it wrote.
pub fn adopt(runs: &[Run], out: &Path) -> Result<usize, String> {
    let mut written = 0;
    for run in runs {
        let dir = out.join(&run.id);
        if is_finished_run(&dir) && RunRecord::read(&dir)?.is_none() {
            RunRecord::of(run).write(&dir)?;
            written += 1;
        }
    }
    Ok(written)
}

/// Runs every incomplete run of `runs` with up to `jobs` at once.
pub fn sweep(runs: &[Run], out: &Path, runners: &Runners, jobs: usize) -> Result<Outcome, String> {
    if runners.program.is_empty() || runners.benchmark.is_empty() {
        return Err("no runner command".into());
    }
    fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let _lock = lock_out(out)?;
    let todo = pending(runs, out);
    let skipped = runs.len() - todo.len();
    eprintln!("memzip sweep: {} runs, {skipped} already done, {} to run with -j {jobs}", runs.len(), todo.len());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build().map_err(|e| e.to_string())?;
    let bar = progress_bar(todo.len());
    let finished = AtomicUsize::new(0);
    // par_bridge: the workers take runs in the spec's order as each becomes free
    // (a par_iter would split the list, starting its second half at once), so a
    // spec's order is the order runs start in.
    // Per run: Some(succeeded), or None when its result appeared meanwhile.
    let results: Vec<Result<(String, Option<bool>), String>> = pool.install(|| {
        todo.iter()
            .par_bridge()
            .map(|run| {
                let start = Instant::now();
                let ok = if has_result(out, &run.id) { None } else { Some(run_one(runners, run, out)?) };
                let k = finished.fetch_add(1, Ordering::SeqCst) + 1;
                let verdict = match ok {
                    Some(true) => "ok".to_string(),
                    Some(false) => format!("FAILED: {}", failure_cause(out, &run.id)),
                    None => "done meanwhile (its directory appeared): skipped".to_string(),
                };
                let line =
                    format!("[{k}/{}] {} {verdict} ({:.1} s)", todo.len(), run.id, start.elapsed().as_secs_f64());
                // A log (not a terminal) gets the lines; a terminal also the bar.
                if bar.is_hidden() {
                    eprintln!("{line}");
                } else {
                    bar.println(line);
                }
                bar.inc(1);
                Ok((run.id.clone(), ok))
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut outcome = Outcome { skipped, ..Outcome::default() };
    for result in results {
        match result? {
            (_, Some(true)) => outcome.succeeded += 1,
            (id, Some(false)) => outcome.failed.push(id),
            (_, None) => outcome.skipped += 1,
        }
    }
    outcome.failed.sort(); // finishing order varies; the outcome does not
    Ok(outcome)
}

/// A bar over `runs` runs on stderr, drawn only when stderr is a terminal.
fn progress_bar(runs: usize) -> ProgressBar {
    let bar = ProgressBar::new(runs as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} runs  {elapsed} elapsed, ~{eta} left")
    {
        bar.set_style(style);
    }
    bar
}

/// The repository root: the nearest ancestor of `start` holding `scripts/sim-run.sh`.
pub fn find_repo(start: &Path) -> Option<PathBuf> {
    start.ancestors().find(|d| d.join("scripts/sim-run.sh").is_file()).map(Path::to_path_buf)
}
