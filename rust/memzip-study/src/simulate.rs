//! `memzip run`: one program under the memzip-patched gpgpu-sim with one
//! codec, and its record. `scripts/sim-run.sh` prepares the run directory
//! and runs the simulator (the shell knows the simulator's build and
//! environment); this module decides whether the run's output is right and
//! writes `run.json` ([`RunJson`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::gpu::{default_version, Gpu};
use crate::run::RunJson;
use crate::sim_log::{kernel_summary, last_cycle_count};

/// One simulation to run.
#[derive(Debug, Clone, Default)]
pub struct SimulateOptions {
    /// The `-memzip_codec` value.
    pub codec: String,
    /// The run directory (emptied first).
    pub out: PathBuf,
    /// Simulator config directory (default: the GTX580-MAG32 config of the version).
    pub config: Option<PathBuf>,
    /// More simulator option lines (`-memzip_verify 1`).
    pub sets: Vec<String>,
    /// A regex (`grep -E`) the program's output must match to count as right,
    /// on top of exit status 0.
    pub expect: Option<String>,
    /// The run's program in `run.json`, which `memzip table` groups runs by
    /// (default: the program's name and arguments).
    pub label: Option<String>,
    /// Simulator version (default: `MEMZIP_GPGPUSIM_VERSION`, else dev).
    pub version: Option<String>,
    /// The GPU simulated (`scripts/sim-run.sh --gpu`; default the GTX580).
    pub gpu: Gpu,
    /// The simulator's own power model.
    pub power: bool,
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// Environment variables for the program (the simulator runs it).
    pub env: Vec<(String, String)>,
}

/// What `scripts/sim-run.sh` reports of a simulation (its stdout).
#[derive(Debug, Default)]
struct Facts {
    out: Option<PathBuf>,
    program: Option<String>,
    simulator: Option<String>,
    simulator_sources: Option<String>,
    /// The GPU whose config ran (`gpu=`; a sim-run.sh without `--gpu` prints none).
    gpu: Option<String>,
    exit_status: Option<i32>,
    wall_seconds: Option<f64>,
    cpu_seconds: Option<f64>,
}

impl Facts {
    fn parse(text: &str) -> Self {
        let mut facts = Facts::default();
        for (key, value) in text.lines().filter_map(|line| line.split_once('=')) {
            let value = value.to_string();
            match key {
                "out" => facts.out = Some(PathBuf::from(value)),
                "program" => facts.program = Some(value),
                "simulator" => facts.simulator = Some(value),
                "simulator_sources" => facts.simulator_sources = Some(value),
                "gpu" => facts.gpu = Some(value),
                "exit_status" => facts.exit_status = value.parse().ok(),
                "wall_seconds" => facts.wall_seconds = value.parse().ok(),
                "cpu_seconds" => facts.cpu_seconds = value.parse().ok(),
                _ => {}
            }
        }
        facts
    }
}

/// The run's program as `run.json` names it by default: the program's file
/// name and its arguments, as sim-run.sh always named it.
fn default_label(program: &str, args: &[String]) -> String {
    let name = Path::new(program).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!("{name} {}", args.join(" "))
}

/// Whether `log` has a line matching the extended regex `pattern`, as
/// `grep -E` decides (the manifests' and specs' EXPECT are grep patterns).
fn log_matches(log: &Path, pattern: &str) -> Result<bool, String> {
    let status = Command::new("grep")
        .arg("-Eq")
        .arg("-e")
        .arg(pattern)
        .arg(log)
        .status()
        .map_err(|e| format!("cannot run grep: {e}"))?;
    match status.code() {
        Some(0) => Ok(true),
        Some(1) => Ok(false),
        _ => Err(format!("--expect '{pattern}': grep -E cannot use it on {}", log.display())),
    }
}

/// `total.dram_bandwidth_utilization` of the run's `stats.json`; `None`
/// without one (an unpatched simulator writes none) or without the field.
fn dram_utilization(out: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(out.join("stats.json")).ok()?;
    let stats: Value = serde_json::from_str(&text).ok()?;
    stats["total"]["dram_bandwidth_utilization"].as_f64()
}

/// The lines that say why a run failed: the simulator's memzip errors, else
/// the end of its log.
pub fn failure_lines(log: &Path) -> Vec<String> {
    let text = std::fs::read(log).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let errors: Vec<String> = text.lines().filter(|l| l.contains("memzip: ERROR")).take(3).map(String::from).collect();
    if !errors.is_empty() {
        return errors;
    }
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(15)..].iter().map(|l| l.to_string()).collect()
}

/// The GPU a run records: the one sim-run.sh says it set up, else the one
/// it was asked for. A name memzip does not know (a sim-run.sh newer than
/// this memzip) is said on stderr, not an error: the simulation has run and
/// its record is still written.
fn recorded_gpu(reported: Option<&str>, asked: Gpu) -> Gpu {
    match reported.map(str::parse::<Gpu>) {
        Some(Ok(gpu)) => gpu,
        Some(Err(_)) => {
            let name = reported.unwrap_or_default();
            eprintln!("memzip run: note: sim-run.sh reported gpu={name}, not a GPU memzip knows; recording {asked}");
            asked
        }
        None => asked,
    }
}

/// Runs the simulation and writes its `run.json`; the record, whose
/// `output_ok` says whether the program exited 0 (and matched `expect`).
/// An error when the run could not be prepared (sim-run.sh said why on
/// stderr) or its record not written.
pub fn simulate(repo: &Path, options: &SimulateOptions) -> Result<RunJson, String> {
    options.gpu.check_version(&options.version.clone().unwrap_or_else(default_version))?;
    let script = repo.join("scripts/sim-run.sh");
    let mut command = Command::new("bash");
    command.arg(&script).arg("--codec").arg(&options.codec).arg("--out").arg(&options.out);
    if let Some(config) = &options.config {
        command.arg("--config").arg(config);
    }
    for line in &options.sets {
        command.arg("--set").arg(line);
    }
    if let Some(version) = &options.version {
        command.arg("--version").arg(version);
    }
    // The default GPU goes unsaid: the command line of a GTX580 run stays the
    // one every committed run was made with.
    if !options.gpu.is_default() {
        command.arg("--gpu").arg(options.gpu.name());
    }
    if options.power {
        command.arg("--power");
    }
    command.arg("--").args(&options.argv).envs(options.env.iter().cloned());
    command.stdin(Stdio::null()).stderr(Stdio::inherit());
    let output = command.output().map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !output.status.success() {
        return Err(format!("{} could not run the simulation ({})", script.display(), output.status));
    }
    let facts = Facts::parse(&String::from_utf8_lossy(&output.stdout));
    let out = facts.out.clone().ok_or_else(|| format!("{} did not say where the run is", script.display()))?;
    let log = out.join("sim.log");
    let exit_status = facts.exit_status.ok_or_else(|| format!("{} did not report an exit status", script.display()))?;
    let expected = match &options.expect {
        Some(pattern) => log_matches(&log, pattern)?,
        None => true,
    };
    let program = facts.program.as_deref().unwrap_or_default();
    let args = options.argv.get(1..).unwrap_or_default();
    // The kernels the log names (none when the simulation printed none).
    let kernels = kernel_summary(&log).ok().filter(|k| k.kernel_launches > 0);
    let gpu = recorded_gpu(facts.gpu.as_deref(), options.gpu);
    let record = RunJson {
        codec: Some(options.codec.clone()),
        program: Some(options.label.clone().unwrap_or_else(|| default_label(program, args))),
        simulator: facts.simulator,
        simulator_sources: facts.simulator_sources,
        gpu: Some(gpu),
        exit_status: Some(exit_status),
        cycles: last_cycle_count(&log),
        wall_seconds: facts.wall_seconds,
        cpu_seconds: facts.cpu_seconds,
        dram_bandwidth_utilization: dram_utilization(&out),
        output_ok: Some(exit_status == 0 && expected),
        kernel_launches: kernels.as_ref().map(|k| k.kernel_launches),
        kernel_dram: kernels.as_ref().map(|k| k.kernel_dram.iter().map(|d| [d.dram_cycles, d.commands]).collect()),
        dram_rrd: kernels.as_ref().and_then(|k| k.rrd_cycles),
        fetch_latency_cycles: kernels.as_ref().and_then(|k| k.memory_wait.fetch_latency_cycles),
        dram_full_stalls: kernels.as_ref().and_then(|k| k.memory_wait.dram_full_stalls),
        reply_latency_cycles: kernels.as_ref().and_then(|k| k.memory_wait.reply_latency_cycles),
        reply_stalls: kernels.as_ref().and_then(|k| k.memory_wait.reply_stalls),
    };
    record.write(&out)?;
    Ok(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_sim_run_prints() {
        let facts = Facts::parse(
            "out=/r/x\nprogram=/bin/patterns\nsimulator=dev-6b244a5\nsimulator_sources=ab12\nexit_status=3\n\
             wall_seconds=9.00\ncpu_seconds=null\ngpu=qv100\n",
        );
        assert_eq!(facts.gpu.as_deref(), Some("qv100"));
        assert_eq!(facts.out, Some(PathBuf::from("/r/x")));
        assert_eq!((facts.exit_status, facts.wall_seconds, facts.cpu_seconds), (Some(3), Some(9.0), None));
        assert_eq!(facts.simulator_sources.as_deref(), Some("ab12"));
    }

    #[test]
    fn the_gpu_recorded_is_the_one_sim_run_set_up() {
        assert_eq!(recorded_gpu(Some("qv100"), Gpu::Qv100), Gpu::Qv100);
        assert_eq!(recorded_gpu(None, Gpu::Rtx3070), Gpu::Rtx3070, "an older sim-run.sh says nothing");
        assert_eq!(recorded_gpu(Some("gtx580"), Gpu::Qv100), Gpu::Gtx580, "what ran, not what was asked");
        assert_eq!(recorded_gpu(Some("h100"), Gpu::Qv100), Gpu::Qv100);
    }

    #[test]
    fn the_default_label_is_the_program_and_its_arguments() {
        let args = ["ints".to_string(), "1024".to_string()];
        assert_eq!(default_label("/cache/demo/bin/patterns", &args), "patterns ints 1024");
        assert_eq!(default_label("/bin/true", &[]), "true ", "as sim-run.sh's \"$(basename ...) $*\"");
    }

    #[test]
    fn expect_is_a_grep_pattern_and_failures_show_memzip_errors() {
        let dir = std::env::temp_dir().join(format!("memzip-simulate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("sim.log");
        std::fs::write(&log, "x\nFinished processing 12 matches\nGPGPU-Sim memzip: ERROR boom\n").unwrap();
        assert!(log_matches(&log, "Finished processing [0-9]+ matches").unwrap());
        assert!(!log_matches(&log, "^PASS").unwrap());
        assert_eq!(failure_lines(&log), ["GPGPU-Sim memzip: ERROR boom"]);
        std::fs::write(&log, (1..=20).map(|i| format!("line {i}\n")).collect::<String>()).unwrap();
        assert_eq!(failure_lines(&log).len(), 15);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A checkout whose scripts/sim-run.sh only records its arguments and
    /// prints the facts a run prints (gpu= when asked for one).
    fn fake_checkout(name: &str) -> PathBuf {
        let repo = std::env::temp_dir().join(format!("memzip-simulate-{name}-{}", std::process::id()));
        std::fs::create_dir_all(repo.join("scripts")).unwrap();
        let script = r#"out= gpu=
args="$*"
while (($#)); do case $1 in --out) out=$2; shift 2 ;; --gpu) gpu=$2; shift 2 ;; --) break ;; *) shift ;; esac; done
mkdir -p "$out"; echo "$args" > "$out/args"; echo "gpu_tot_sim_cycle = 42" > "$out/sim.log"
echo "out=$out"; echo "program=/bin/true"; echo "exit_status=0"; [[ -z "$gpu" ]] || echo "gpu=$gpu"
"#;
        std::fs::write(repo.join("scripts/sim-run.sh"), script).unwrap();
        repo
    }

    #[test]
    fn the_gpu_reaches_sim_run_and_run_json_and_v3_2_1_refuses_another() {
        let repo = fake_checkout("gpu");
        let options = |gpu: Gpu, out: &str| SimulateOptions {
            codec: "none".into(),
            out: repo.join(out),
            gpu,
            version: Some("dev".into()),
            argv: vec!["true".into()],
            ..SimulateOptions::default()
        };
        let record = simulate(&repo, &options(Gpu::Qv100, "qv100")).unwrap();
        assert_eq!((record.gpu, record.cycles), (Some(Gpu::Qv100), Some(42)));
        let args = std::fs::read_to_string(repo.join("qv100/args")).unwrap();
        assert!(args.contains("--gpu qv100 -- true"), "{args}");
        let text = std::fs::read_to_string(repo.join("qv100/run.json")).unwrap();
        assert!(text.contains("\"gpu\": \"qv100\""), "{text}");
        // The GTX580 goes unsaid to sim-run.sh (the command line of every
        // earlier run) and is recorded all the same.
        let record = simulate(&repo, &options(Gpu::Gtx580, "gtx580")).unwrap();
        assert_eq!(record.gpu, Some(Gpu::Gtx580));
        assert!(!std::fs::read_to_string(repo.join("gtx580/args")).unwrap().contains("--gpu"));
        // v3.2.1 has no QV100 config: an error before sim-run.sh runs.
        let v321 = SimulateOptions { version: Some("v3.2.1".into()), ..options(Gpu::Rtx3070, "v321") };
        let err = simulate(&repo, &v321).unwrap_err();
        assert_eq!(
            err,
            "--gpu rtx3070: gpgpu-sim v3.2.1 has the gtx580 config only (the rtx3070 config needs --version dev)"
        );
        assert!(!repo.join("v321").exists(), "nothing ran");
        std::fs::remove_dir_all(&repo).unwrap();
    }
}
