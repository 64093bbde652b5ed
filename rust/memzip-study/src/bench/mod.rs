//! `memzip bench run`: one real benchmark under the simulator, from its
//! upstream source. The manifest's shell parts run in `scripts/bench.sh`
//! (fetch, build, make the input; the program's command line; the output
//! check); this runs the rest: the E2MC offline table when the run needs one
//! ([`e2mc_tables`]), the simulation and its record ([`crate::simulate`]),
//! the analyses of a `none` run's trace ([`analyses`]), `bench.json` and, for
//! a benchmark whose manifest marks approximable data, the output error a
//! lossy codec cost ([`output_values`]).

pub mod analyses;
pub mod e2mc_tables;
pub mod output_values;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use memzip::codec::spec::CodecSpec;
use memzip::Geometry;
use serde::Serialize;

use crate::files::write_atomically;
use crate::gpu::{default_version, Gpu};
use crate::manifest::Manifest;
use crate::run::RunJson;
use crate::simulate::{failure_lines, simulate, SimulateOptions};
use e2mc_tables::TableCache;

/// The option line that asks for an offline E2MC table profiled for the run
/// (the form sweep specs use; the same as `--e2mc offline`).
const OFFLINE_AUTO: &str = "-memzip_e2mc_sampling offline:auto";

/// One benchmark run.
#[derive(Debug, Clone, Default)]
pub struct BenchOptions {
    /// `suite/name`, or a name only one suite has.
    pub benchmark: String,
    pub codec: String,
    pub preset: String,
    /// The run directory (default:
    /// `<cache>/benchmarks/results/<suite>-<name>-<preset>-<codec>[@<gpu>][@<version>]`).
    pub out: Option<PathBuf>,
    /// Simulator version (default: `MEMZIP_GPGPUSIM_VERSION`, else dev).
    pub version: Option<String>,
    /// The GPU simulated (default the GTX580).
    pub gpu: Gpu,
    /// E2MC with an offline table profiled from this benchmark and preset.
    pub e2mc_offline: bool,
    /// More simulator option lines.
    pub sets: Vec<String>,
}

/// What `bench.sh prepare` reports of a prepared benchmark.
#[derive(Debug, Default)]
struct Prepared {
    suite: String,
    commit: String,
    cache: PathBuf,
    expect: Option<String>,
    check: String,
    check_kind: String,
    build_stamp: String,
    input_sum: Option<String>,
    /// The manifest's safe-to-approximate allocations (`APPROX_ALLOCS`).
    approx_allocs: Option<String>,
    /// The manifest has a `VALUES` command.
    values_command: bool,
}

impl Prepared {
    fn parse(text: &str) -> Self {
        let mut prepared = Prepared::default();
        for (key, value) in text.lines().filter_map(|line| line.split_once('=')) {
            let value = value.to_string();
            match key {
                "suite" => prepared.suite = value,
                "commit" => prepared.commit = value,
                "cache" => prepared.cache = PathBuf::from(value),
                "expect" => prepared.expect = Some(value).filter(|v| !v.is_empty()),
                "check" => prepared.check = value,
                "check_kind" => prepared.check_kind = value,
                "build_stamp" => prepared.build_stamp = value,
                "input_sum" => prepared.input_sum = Some(value),
                "approx_allocs" => prepared.approx_allocs = Some(value).filter(|v| !v.is_empty()),
                "values" => prepared.values_command = value == "1",
                _ => {}
            }
        }
        prepared
    }
}

/// `bench.json`: what ran, next to `run.json`.
#[derive(Debug, Serialize)]
struct BenchJson<'a> {
    suite: &'a str,
    benchmark: &'a str,
    commit: &'a str,
    preset: &'a str,
    codec: &'a str,
    simulator: &'a str,
    e2mc_offline: bool,
    check_kind: &'a str,
    check_ok: bool,
}

/// `bash scripts/bench.sh ARGS` with stderr shown as it comes; its stdout, or
/// an error that carries why it failed (the cause it printed last), so that a
/// sweep's one line per failed run says what to do (e.g. build the tensor
/// corpus) without opening the run's log.
fn bench_sh(repo: &Path, args: &[&str]) -> Result<String, String> {
    let mut child = Command::new("bash")
        .arg(repo.join("scripts/bench.sh"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run scripts/bench.sh: {e}"))?;
    let stderr = child.stderr.take().expect("stderr is piped");
    // stderr is read on its own thread so that neither pipe can fill and stall the script.
    let relay = std::thread::spawn(move || relay_stderr(BufReader::new(stderr)));
    let mut stdout = String::new();
    let read = child.stdout.take().expect("stdout is piped").read_to_string(&mut stdout);
    let status = child.wait().map_err(|e| format!("scripts/bench.sh: {e}"))?;
    let cause = relay.join().unwrap_or_default();
    read.map_err(|e| format!("scripts/bench.sh: reading its output: {e}"))?;
    if status.success() {
        return Ok(stdout);
    }
    let command = args.first().unwrap_or(&"");
    let cause = cause.map(|cause| format!(": {cause}")).unwrap_or_default();
    Err(format!("scripts/bench.sh {command} failed ({status}){cause}"))
}

/// Copies a script's stderr to ours line by line and returns the line that
/// says why it failed: the last one that is neither a step heading (`==> `)
/// nor lib.sh's `memzip: FAILED at step` (which only names the step), else
/// that FAILED line.
fn relay_stderr(stderr: impl BufRead) -> Option<String> {
    let (mut cause, mut failed) = (None, None);
    for line in stderr.lines().map_while(Result::ok) {
        eprintln!("{line}");
        let text = line.trim();
        if text.starts_with("memzip: FAILED at step") {
            failed = Some(text.to_string());
        } else if !text.is_empty() && !text.starts_with("==> ") {
            cause = Some(text.to_string());
        }
    }
    cause.or(failed)
}

/// The file of a `-memzip_trace FILE` line among `sets`, if any.
fn trace_of(sets: &[String]) -> Option<&str> {
    sets.iter().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some("-memzip_trace")).then(|| words.next()).flatten().filter(|_| words.next().is_none())
    })
}

/// The symbol length of the E2MC a codec spec uses: `e2mc<bits>`, or the
/// last E2MC candidate of an adaptive spec.
fn e2mc_bits(codec: &str) -> Option<u32> {
    let spec = CodecSpec::parse(codec, Geometry::default()).ok()?;
    let bits = |spec: &CodecSpec| spec.name.strip_prefix("e2mc").and_then(|bits| bits.parse::<u32>().ok());
    if spec.name == "adaptive" {
        spec.candidate_specs().ok()?.iter().rev().find_map(bits)
    } else {
        bits(&spec)
    }
}

/// Where memzip keeps what it downloads and builds: `MEMZIP_CACHE`, else
/// `${XDG_CACHE_HOME:-$HOME/.cache}/memzip` (as scripts/lib.sh).
pub fn cache_root() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var("MEMZIP_CACHE").unwrap_or_else(|| {
        var("XDG_CACHE_HOME").unwrap_or_else(|| var("HOME").unwrap_or_default().join(".cache")).join("memzip")
    })
}

/// The finished benchmark runs in the cache, for `memzip bench table`.
pub fn cached_results() -> Vec<PathBuf> {
    let results = cache_root().join("benchmarks/results");
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(&results).map(|entries| entries.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    dirs.retain(|d| d.is_dir() && !d.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')));
    dirs.sort();
    dirs
}

/// The program's command line for a run folder (`bench.sh argv`).
fn argv(repo: &Path, manifest: &str, preset: &str, out: &Path) -> Result<Vec<String>, String> {
    let out = out.to_string_lossy();
    let text = bench_sh(repo, &["argv", manifest, "--preset", preset, "--out", &out])?;
    Ok(text.lines().map(String::from).collect())
}

/// Runs one benchmark: builds it, simulates it, checks its output. An error
/// names what failed (the build, the simulation, the output check).
pub fn run_benchmark(repo: &Path, options: &BenchOptions) -> Result<(), String> {
    let version = options.version.clone().unwrap_or_else(default_version);
    options.gpu.check_version(&version)?;
    let manifest = Manifest::find(repo, &options.benchmark)?;
    manifest.check_runs_at(&options.preset)?;
    if manifest.runner == "mgpu" {
        if !options.gpu.is_default() {
            return Err(format!(
                "--gpu {}: {} runs on MGPUSim, whose GPUs --gpu does not choose (leave it out)",
                options.gpu, options.benchmark
            ));
        }
        return run_multi_gpu(repo, options);
    }
    let codec = options.codec.as_str();
    let offline = options.e2mc_offline || options.sets.iter().any(|line| line.trim() == OFFLINE_AUTO);
    let mut sets: Vec<String> = options.sets.iter().filter(|line| line.trim() != OFFLINE_AUTO).cloned().collect();
    let trace = trace_of(&sets).map(String::from);
    let seeds_tables = codec == "none" && trace.is_some();
    let bits = if offline {
        Some(e2mc_bits(codec).ok_or_else(|| format!("--e2mc offline: codec '{codec}' uses no E2MC (e2mc4/8/16/32)"))?)
    } else {
        None
    };

    let manifest_path = manifest.path.to_string_lossy().into_owned();
    let preset = options.preset.as_str();
    let mut prepare = vec!["prepare", manifest_path.as_str(), "--preset", preset];
    if offline || seeds_tables {
        prepare.push("--input-sum");
    }
    let prepared = Prepared::parse(&bench_sh(repo, &prepare)?);
    // The manifest's approximable data for a lossy codec, unless the run
    // names its own (an empty -memzip_approx_allocs line: none). Lossless
    // runs go without: nothing in them changes, not even a counter.
    if let (Some(allocs), true) = (&prepared.approx_allocs, output_values::may_approximate(codec)) {
        if !sets.iter().any(|line| line.split_whitespace().next() == Some(output_values::APPROX_FLAG)) {
            sets.push(format!("{} {allocs}", output_values::APPROX_FLAG));
        }
    }
    let name = &manifest.name;
    let benchmark = format!("{}/{name}", prepared.suite);
    let dev = version == "dev";
    let suffix = if dev { String::new() } else { format!("@{version}") };
    let label = if dev { format!("{benchmark} {preset}") } else { format!("{benchmark} {preset} @{version}") };
    // Another GPU's runs of the benchmark are other runs (a GTX580 run keeps its name).
    let gpu = options.gpu;
    let gpu_suffix = if gpu.is_default() { String::new() } else { format!("@{gpu}") };
    let out = options.out.clone().unwrap_or_else(|| {
        prepared.cache.join("results").join(format!("{}-{name}-{preset}-{codec}{gpu_suffix}{suffix}", prepared.suite))
    });
    // Absolute: the program runs inside it, and RUN may name files under $OUT.
    let out = std::path::absolute(&out).map_err(|e| format!("--out {}: {e}", out.display()))?;
    // An offline table is of the blocks DRAM stores, which the GPU's caches decide.
    let tables = TableCache::new(
        &prepared.cache,
        &benchmark,
        preset,
        &format!("{version}{gpu_suffix}"),
        &prepared.build_stamp,
        prepared.input_sum.as_deref().unwrap_or_default(),
    );
    let simulation = |codec: &str, out: &Path, sets: Vec<String>, label: String| SimulateOptions {
        codec: codec.to_string(),
        out: out.to_path_buf(),
        sets,
        expect: prepared.expect.clone(),
        label: Some(label),
        version: Some(version.clone()),
        gpu,
        argv: Vec::new(),
        ..SimulateOptions::default()
    };

    if let Some(bits) = bits {
        let table = tables.table_for(bits, |trace| {
            eprintln!("==> e2mc offline table: profiling run of {benchmark} {preset} (codec none, trace)");
            let profile_out = tables.dir.join("profile-run");
            let mut run = simulation(
                "none",
                &profile_out,
                vec![format!("-memzip_trace {}", trace.display())],
                format!("{benchmark} {preset} profile"),
            );
            // The program's own output files go to the profiling run's folder.
            run.argv = argv(repo, &manifest_path, preset, &profile_out)?;
            match simulate(repo, &run)?.output_ok {
                Some(true) => Ok(()),
                _ => Err(format!("profiling run failed (log: {}/sim.log)", profile_out.display())),
            }
        })?;
        sets.push(format!("-memzip_e2mc_sampling offline:{}", table.display()));
    }

    eprintln!("==> simulate {benchmark} {preset} ({codec})");
    let mut run = simulation(codec, &out, sets, label);
    run.argv = argv(repo, &manifest_path, preset, &out)?;
    // Programs that report their output values write them here (their .sed).
    run.env.push((output_values::VALUES_ENV.into(), out.join(output_values::VALUES_FILE).display().to_string()));
    let record = simulate(repo, &run)?;
    // A run that approximated data may fail: that is its result, recorded.
    let approximation = output_values::Approximation::of_run(&out);
    if record.output_ok != Some(true) {
        failure_lines(&out.join("sim.log")).iter().for_each(|line| eprintln!("{line}"));
        if !approximation.approximated() {
            return Err(format!("{name} failed under the simulator (log: {}/sim.log)", out.display()));
        }
    }
    if let (true, Some(trace)) = (seeds_tables, trace) {
        // A none run with a trace is exactly the offline profiling run: seed the
        // cached tables so a later offline run of this input skips its own.
        let trace = out.join(trace);
        tables.seed(&trace)?;
        analyses::analyze_run(repo, &out, &trace)?;
    }

    let out_text = out.to_string_lossy();
    let check_ok = record.output_ok == Some(true)
        && bench_sh(repo, &["check", &manifest_path, "--preset", preset, "--out", &out_text]).is_ok();
    if prepared.approx_allocs.is_some() || approximation.approximable_blocks > 0 {
        // The reference is the same GPU's exact run: a program whose floating-point
        // reductions follow the warps' timing may round differently on another GPU.
        let key_suffix = format!("{gpu_suffix}{suffix}");
        let values = output_values::ValuesRun {
            out: &out,
            exact_key: &format!("{}-{name}-{preset}{key_suffix}", prepared.suite),
            exact_dir: &prepared.cache.join("exact-values"),
            exact_label: &format!(
                "{benchmark} {preset}{} (the last exact run's output)",
                key_suffix.replace('@', " @")
            ),
        };
        if prepared.values_command {
            let values = bench_sh(repo, &["values", &manifest_path, "--preset", preset, "--out", &out_text]);
            output_values::write_values(&out, values)?;
        }
        output_values::measure(&values, approximation, check_ok)?;
    }
    let bench = BenchJson {
        suite: &prepared.suite,
        benchmark: name,
        commit: &prepared.commit,
        preset,
        codec,
        simulator: &version,
        e2mc_offline: offline,
        check_kind: &prepared.check_kind,
        check_ok,
    };
    let json = serde_json::to_string_pretty(&bench).map_err(|e| format!("bench.json: {e}"))? + "\n";
    write_atomically(&out.join("bench.json"), json.as_bytes())?;
    if !check_ok {
        RunJson::mark_output_wrong(&out)?;
        if approximation.approximated() {
            // Reported, not hidden: run.json says the output is wrong and
            // records the error; the run itself is done.
            eprintln!("    {name} {preset} {codec}: output WRONG after approximation (recorded in run.json)");
            return Ok(());
        }
        return Err(format!(
            "{name} {preset} {codec}: WRONG output (check: {}; log: {}/check.log)",
            prepared.check,
            out.display()
        ));
    }
    eprintln!("    {name} {preset} {codec}: output correct");
    Ok(())
}

/// A multi-GPU benchmark: scripts/mgpu-run.sh runs it on MGPUSim with
/// memzip-mgpu, which writes the run's record itself.
fn run_multi_gpu(repo: &Path, options: &BenchOptions) -> Result<(), String> {
    let script = repo.join("scripts/mgpu-run.sh");
    let mut command = Command::new("bash");
    command.arg(&script).arg("--benchmark").arg(&options.benchmark).arg("--preset").arg(&options.preset);
    command.arg("--codec").arg(&options.codec);
    if let Some(out) = &options.out {
        command.arg("--out").arg(out);
    }
    for line in &options.sets {
        command.arg("--set").arg(line);
    }
    let status = command.stdin(Stdio::null()).status().map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    status
        .success()
        .then_some(())
        .ok_or_else(|| format!("{} {} {} failed ({status})", options.benchmark, options.preset, options.codec))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_line_and_the_e2mc_symbol_length() {
        let sets = ["-memzip_verify 1".to_string(), "-memzip_trace trace.zst".to_string()];
        assert_eq!(trace_of(&sets), Some("trace.zst"));
        assert_eq!(trace_of(&sets[..1]), None);
        assert_eq!(e2mc_bits("e2mc16"), Some(16));
        assert_eq!(e2mc_bits("e2mc8:pdw=2"), Some(8));
        assert_eq!(e2mc_bits("adaptive:candidates=e2mc16/fpc/e2mc8"), Some(8), "the last E2MC candidate");
        assert_eq!(e2mc_bits("adaptive"), None);
        assert_eq!(e2mc_bits("mag_bdi"), None);
    }

    #[test]
    fn a_failed_script_says_why_in_its_error() {
        let repo = std::env::temp_dir().join(format!("memzip-bench-sh-{}", std::process::id()));
        std::fs::create_dir_all(repo.join("scripts")).unwrap();
        std::fs::write(
            repo.join("scripts/bench.sh"),
            "echo '==> input ml/gemv (study)' >&2\necho 'ml_tensors.py: the tensor corpus is not built' >&2\n\
             echo \"memzip: FAILED at step 'input': input generation failed\" >&2\nexit 1\n",
        )
        .unwrap();
        let error = bench_sh(&repo, &["prepare"]).unwrap_err();
        assert!(error.starts_with("scripts/bench.sh prepare failed (exit status: 1): "), "{error}");
        assert!(error.ends_with("ml_tensors.py: the tensor corpus is not built"), "{error}");
        std::fs::write(repo.join("scripts/bench.sh"), "echo out; echo '==> a step' >&2\n").unwrap();
        assert_eq!(bench_sh(&repo, &["argv"]).unwrap(), "out\n");
        std::fs::remove_dir_all(&repo).unwrap();
    }

    #[test]
    fn the_cause_is_the_last_line_that_is_not_a_step() {
        let cause = |text: &str| relay_stderr(text.as_bytes());
        assert_eq!(cause("==> a\nwhy\nmemzip: FAILED at step 'a': x\n").as_deref(), Some("why"));
        assert_eq!(cause("==> a\nmemzip: FAILED at step 'a': x\n").as_deref(), Some("memzip: FAILED at step 'a': x"));
        assert_eq!(cause("==> a\n\n"), None);
    }

    #[test]
    fn reads_what_prepare_prints() {
        let prepared = Prepared::parse(
            "suite=rodinia\nbenchmark=bfs\ncommit=9c10\ncache=/c/benchmarks\nexpect=Result stored in result.txt\n\
             check=cmp -s \"$OUT/result.txt\" \"$DATA/reference.txt\"\ncheck_kind=reference (host BFS)\n\
             build_stamp=9c10 nvcc 123 4\n",
        );
        assert_eq!(prepared.expect.as_deref(), Some("Result stored in result.txt"));
        assert_eq!((prepared.input_sum, prepared.cache), (None, PathBuf::from("/c/benchmarks")));
        assert!(Prepared::parse("expect=\n").expect.is_none());
    }
}
