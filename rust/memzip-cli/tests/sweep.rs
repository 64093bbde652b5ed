//! `memzip sweep` with a fake runner (no simulator): expansion, atomic
//! results, failure records, and resume after the sweep is killed.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use memzip_study::gpu::Gpu;
use memzip_study::run::{RunRecord, TIMING_MODEL};
use memzip_study::sweep::{
    adopt, estimate, expand, has_result, load_spec, recorded_runs, reuse, sweep, PlannedRun, Runners, Target,
};

/// A runner with sim-run.sh's arguments: writes run.json into --out after
/// sleeping $SLEEP seconds, counts its calls in $COUNT, fails for codec "bad";
/// with $PIDS, appends its pid and its sleep's there.
const FAKE_RUNNER: &str = r#"#!/usr/bin/env bash
set -eu
codec= out= sets=() gpu=
while (($#)); do
  case $1 in
    --codec) codec=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --set) sets+=("$2"); shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --expect) shift 2 ;;
    --benchmark) set -- "$2" "$4"; break ;;
    --) shift; break ;;
  esac
done
echo x >> "$COUNT"
mkdir -p "$out"
sleep "${SLEEP:-0}" &
[[ -z "${PIDS:-}" ]] || echo "$$ $!" >> "$PIDS"
wait $!
[[ "$codec" != bad ]] || { echo "bad codec" >&2; exit 1; }
printf '{"codec": "%s", "program": "%s", "options": "%s", "gpu_arg": "%s"}\n' "$codec" "$*" "${sets[*]:-}" "$gpu" \
  > "$out/run.json"
"#;

fn write_runner(dir: &Path) -> PathBuf {
    let path = dir.join("runner.sh");
    fs::write(&path, FAKE_RUNNER).unwrap();
    path
}

/// `env VAR=FILE bash SCRIPT`: a runner command line that tells the fake
/// runner which file it records its calls in.
fn bash_recording(var: &str, file: &Path, script: &Path) -> Vec<String> {
    vec!["env".into(), format!("{var}={}", file.display()), "bash".into(), script.display().to_string()]
}

/// Runners whose benchmark runner is the fake one, counting its calls in
/// `dir/count` (returned with them).
fn benchmark_runners(dir: &Path) -> (Runners, PathBuf) {
    let count = dir.join("count");
    let benchmark = bash_recording("COUNT", &count, &write_runner(dir));
    (Runners { program: vec!["false".into()], benchmark, timeout: None }, count)
}

/// The first lines of a runner that only needs --codec ($c) and --out ($o).
const CODEC_AND_OUT: &str = "#!/usr/bin/env bash\n\
    while (($#)); do case $1 in --codec) c=$2; shift 2 ;; --out) o=$2; shift 2 ;; --) break ;; *) shift ;; esac; done\n";

fn write_spec(dir: &Path, codecs: &[&str]) -> PathBuf {
    let codecs: Vec<String> = codecs.iter().map(|c| format!("\"{c}\"")).collect();
    let spec = format!(
        r#"{{"runs": [
            {{"name": "ints", "argv": ["{{repo}}/patterns", "ints"], "codecs": [{c}], "expect": "^PASS"}},
            {{"name": "floats", "argv": ["{{repo}}/patterns", "floats"], "codecs": [{c}],
              "option_sets": [["-memzip_verify 1"], ["-memzip_verify 1", "-memzip_mdc_bytes 4096"]]}}
        ]}}"#,
        c = codecs.join(", ")
    );
    let path = dir.join("spec.json");
    fs::write(&path, spec).unwrap();
    path
}

fn calls(count: &Path) -> usize {
    fs::read_to_string(count).map(|s| s.lines().count()).unwrap_or(0)
}

#[test]
fn expansion_is_fixed_and_named_by_entry_codec_and_options() {
    let dir = common::temp_dir("sweep-expand");
    let runs =
        expand(&load_spec(&write_spec(&dir, &["none", "mag_bdi:bases=8+4+2"])).unwrap(), Path::new("/r")).unwrap();
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "ints-none",
            "ints-mag_bdi_bases_8_4_2",
            "floats-none-o0",
            "floats-none-o1",
            "floats-mag_bdi_bases_8_4_2-o0",
            "floats-mag_bdi_bases_8_4_2-o1"
        ]
    );
    assert_eq!(runs[0].target, Target::Program(vec!["/r/patterns".into(), "ints".into()]));
    assert_eq!(runs[1].codec, "mag_bdi:bases=8+4+2");
    assert_eq!(runs[3].options, ["-memzip_verify 1", "-memzip_mdc_bytes 4096"]);
    assert_eq!(runs[0].expect.as_deref(), Some("^PASS"));
}

#[test]
fn bad_specs_are_errors_naming_the_problem() {
    let dir = common::temp_dir("sweep-bad-spec");
    let path = dir.join("spec.json");
    fs::write(&path, r#"{"runs": [{"name": "a/b", "argv": ["x"], "codecs": ["none"]}]}"#).unwrap();
    assert!(expand(&load_spec(&path).unwrap(), Path::new("/")).unwrap_err().contains("run name 'a/b'"));
    fs::write(&path, r#"{"runs": [{"name": "a", "argv": ["x"], "codecs": ["none", "none"]}]}"#).unwrap();
    assert!(expand(&load_spec(&path).unwrap(), Path::new("/")).unwrap_err().contains("'a-none'"));
    fs::write(&path, r#"{"runs": [{"name": "a", "argv": ["x"], "codec": ["none"]}]}"#).unwrap();
    assert!(load_spec(&path).unwrap_err().contains("unknown field"));
    let expand_error = |spec: &str| {
        fs::write(&path, spec).unwrap();
        expand(&load_spec(&path).unwrap(), Path::new("/")).unwrap_err()
    };
    assert!(expand_error(r#"{"runs": [{"argv": ["x"], "codecs": ["none"]}]}"#).contains("needs a name"));
    assert!(expand_error(r#"{"runs": [{"name": "a", "codecs": ["none"]}]}"#).contains("give argv"));
    assert!(expand_error(r#"{"runs": [{"benchmark": "bfs", "argv": ["x"], "codecs": ["none"]}]}"#).contains("not both"));
    assert!(expand_error(r#"{"runs": [{"name": "a", "argv": ["x"], "presets": ["tiny"], "codecs": ["none"]}]}"#)
        .contains("presets belong to benchmark"));
}

#[test]
fn benchmark_entries_expand_per_preset_and_reach_the_benchmark_runner() {
    let dir = common::temp_dir("sweep-bench");
    let spec = dir.join("spec.json");
    fs::write(
        &spec,
        r#"{"runs": [{"benchmark": "rodinia/bfs", "presets": ["tiny", "small"], "codecs": ["none", "mag_bdi"]},
                     {"benchmark": "hotspot", "name": "hs", "codecs": ["bdi"], "option_sets": [["-memzip_verify 1"]]}]}"#,
    )
    .unwrap();
    let runs = expand(&load_spec(&spec).unwrap(), Path::new("/r")).unwrap();
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "rodinia-bfs-tiny-none",
            "rodinia-bfs-tiny-mag_bdi",
            "rodinia-bfs-small-none",
            "rodinia-bfs-small-mag_bdi",
            "hs-tiny-bdi"
        ]
    );
    assert_eq!(runs[2].target, Target::Benchmark { name: "rodinia/bfs".into(), preset: "small".into() });
    // The default runners: memzip run for command lines, memzip bench run for benchmarks.
    let repo = Runners::of_memzip(Path::new("/bin/memzip"), Path::new("/r"));
    assert_eq!(repo.benchmark, ["env", "MEMZIP_ROOT=/r", "/bin/memzip", "bench", "run"]);
    assert_eq!(repo.program, ["env", "MEMZIP_ROOT=/r", "/bin/memzip", "run"]);
    // The fake runner records the benchmark and preset it was given.
    let runners = Runners {
        program: vec!["false".into()],
        benchmark: bash_recording("COUNT", &dir.join("count"), &write_runner(&dir)),
        timeout: None,
    };
    let out = dir.join("results");
    let outcome = sweep(&runs, &out, &runners, 2).unwrap();
    assert_eq!((outcome.succeeded, outcome.failed.len()), (5, 0));
    let run = fs::read_to_string(out.join("hs-tiny-bdi/run.json")).unwrap();
    assert!(run.contains(r#""program": "hotspot tiny""#) && run.contains("-memzip_verify 1"), "{run}");
}

#[test]
fn gpus_are_one_more_axis_named_in_ids_only_when_not_the_gtx580() {
    let dir = common::temp_dir("sweep-gpus");
    let spec = dir.join("spec.json");
    fs::write(
        &spec,
        r#"{"runs": [{"benchmark": "rodinia/bfs", "gpus": ["gtx580", "qv100"], "codecs": ["none", "bdi"]},
                     {"benchmark": "hotspot", "codecs": ["none"]}]}"#,
    )
    .unwrap();
    let runs = expand(&load_spec(&spec).unwrap(), Path::new("/r")).unwrap();
    let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "rodinia-bfs-tiny-none",
            "rodinia-bfs-tiny-bdi",
            "rodinia-bfs-tiny-qv100-none",
            "rodinia-bfs-tiny-qv100-bdi",
            "hotspot-tiny-none"
        ]
    );
    assert_eq!(runs[2].gpu, Gpu::Qv100);
    assert_eq!(runs[4].gpu, Gpu::Gtx580, "an entry without gpus: the GTX580");
    // `memzip sweep --gpu rtx3070`: the entries without gpus run on it.
    let on_rtx = expand(&load_spec(&spec).unwrap().with_default_gpu(Gpu::Rtx3070), Path::new("/r")).unwrap();
    assert_eq!(on_rtx.last().unwrap().id, "hotspot-tiny-rtx3070-none");
    assert_eq!(on_rtx[2].gpu, Gpu::Qv100, "an entry's own gpus stay");
    // The runner gets --gpu for the QV100 only; sweep.json records it.
    let runners = Runners::single(bash_recording("COUNT", &dir.join("count"), &write_runner(&dir)));
    let out = dir.join("results");
    let outcome = sweep(&runs, &out, &runners, 1).unwrap();
    assert_eq!((outcome.succeeded, outcome.failed.len()), (5, 0));
    let run_json = |id: &str| fs::read_to_string(out.join(id).join("run.json")).unwrap();
    assert!(run_json("rodinia-bfs-tiny-qv100-bdi").contains(r#""gpu_arg": "qv100""#));
    assert!(run_json("rodinia-bfs-tiny-bdi").contains(r#""gpu_arg": """#));
    let record = |id: &str| RunRecord::read(&out.join(id)).unwrap().unwrap();
    assert_eq!(record("rodinia-bfs-tiny-qv100-bdi").gpu, Gpu::Qv100);
    let gtx580 = fs::read_to_string(out.join("rodinia-bfs-tiny-bdi/sweep.json")).unwrap();
    assert!(!gtx580.contains("gpu"), "a GTX580 record as every earlier one: {gtx580}");
    // A run on another GPU is another configuration (--reuse does not copy it).
    assert!(!record("rodinia-bfs-tiny-bdi").same_configuration(&record("rodinia-bfs-tiny-qv100-bdi")));
    assert!(record("rodinia-bfs-tiny-bdi").same_configuration(&record("rodinia-bfs-tiny-bdi")));
}

#[test]
fn a_bad_gpu_or_one_v3_2_1_lacks_is_a_one_line_error() {
    let dir = common::temp_dir("sweep-bad-gpu");
    let spec = dir.join("spec.json");
    fs::write(&spec, r#"{"runs": [{"name": "a", "argv": ["true"], "gpus": ["v100"], "codecs": ["none"]}]}"#).unwrap();
    let err = expand(&load_spec(&spec).unwrap(), Path::new("/")).unwrap_err();
    assert_eq!(err, "run 'a': gpus: 'v100' is not a GPU memzip simulates (valid: gtx580, qv100, rtx3070)");
    // In the checkout, with the simulator's runners: rejected before any run starts.
    fs::write(&spec, r#"{"runs": [{"name": "a", "argv": ["true"], "gpus": ["qv100"], "codecs": ["none"]}]}"#).unwrap();
    let out = dir.join("results");
    let memzip = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_memzip"))
            .arg("sweep")
            .arg(&spec)
            .arg("--out")
            .arg(&out)
            .args(args)
            .env("MEMZIP_GPGPUSIM_VERSION", "v3.2.1")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap()
    };
    let output = memzip(&[]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "memzip: error: run a-qv100-none: --gpu qv100: gpgpu-sim v3.2.1 has the gtx580 config only \
         (the qv100 config needs --version dev)\n"
    );
    assert!(!out.exists(), "nothing ran");
    let output = memzip(&["--gpu", "h100", "--dry-run"]);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "memzip: error: --gpu 'h100': not a GPU memzip simulates (valid: gtx580, qv100, rtx3070)\n"
    );
    // --dry-run lists each run's GPU last.
    let output = memzip(&["--dry-run"]);
    assert_eq!(String::from_utf8_lossy(&output.stdout), "a-qv100-none\tnone\t\ttrue\tqv100\n");
}

#[test]
fn failures_are_recorded_and_retried() {
    let dir = common::temp_dir("sweep-failures");
    let runner = write_runner(&dir);
    let count = dir.join("count");
    let runs: Vec<PlannedRun> = expand(&load_spec(&write_spec(&dir, &["none", "bad"])).unwrap(), &dir).unwrap();
    let out = dir.join("results");
    let runner_cmd = Runners::single(bash_recording("COUNT", &count, &runner));
    let outcome = sweep(&runs, &out, &runner_cmd, 2).unwrap();
    assert_eq!((outcome.skipped, outcome.succeeded), (0, 3));
    assert_eq!(outcome.failed.len(), 3);
    assert!(out.join("ints-none/run.json").is_file());
    assert!(fs::read_to_string(out.join("ints-bad.failed/runner.log")).unwrap().contains("bad codec"));
    assert!(fs::read_to_string(out.join("ints-bad.failed/reason.txt")).unwrap().contains("exit status: 1"));
    assert!(!out.join("ints-bad").exists(), "a failed run never takes the run's name");
    // A rerun skips what is done and retries only the failures.
    let before = calls(&count);
    let again = sweep(&runs, &out, &runner_cmd, 1).unwrap();
    assert_eq!((again.skipped, again.succeeded, again.failed.len()), (3, 0, 3));
    assert_eq!(calls(&count) - before, 3);
}

#[test]
fn resume_after_a_kill_runs_only_what_is_missing() {
    let dir = common::temp_dir("sweep-resume");
    let runner = write_runner(&dir);
    let spec = write_spec(&dir, &["none", "bdi", "mag_bdi"]); // 9 runs
    let out = dir.join("results");
    let count = dir.join("count");
    let sweep_cmd = |sleep: &str| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_memzip"));
        c.arg("sweep")
            .arg(&spec)
            .arg("--out")
            .arg(&out)
            .arg("--runner")
            .arg("bash")
            .arg(&runner)
            .env("COUNT", &count)
            .env("SLEEP", sleep)
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    };
    // Kill the sweep once a few runs are complete.
    let mut child = sweep_cmd("0.3").spawn().unwrap();
    let start = Instant::now();
    let done = |out: &Path| {
        fs::read_dir(out)
            .map(|d| {
                d.flatten()
                    .filter(|e| {
                        e.path().join("run.json").is_file() && !e.file_name().to_string_lossy().starts_with('.')
                    })
                    .count()
            })
            .unwrap_or(0)
    };
    while done(&out) < 3 && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The runner it had started is orphaned, not killed (a terminal's Ctrl-C
    // would stop the whole group): let it finish before resuming.
    std::thread::sleep(Duration::from_millis(800));
    let completed = done(&out);
    assert!((3..9).contains(&completed), "killed with {completed} of 9 done");
    let calls_before = calls(&count);

    let status = sweep_cmd("0").status().unwrap();
    assert!(status.success());
    assert_eq!(done(&out), 9);
    assert_eq!(calls(&count) - calls_before, 9 - completed, "only the missing runs ran again");
    let leftovers: Vec<_> = fs::read_dir(&out)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "no half-written run directories remain");
    let run = fs::read_to_string(out.join("floats-mag_bdi-o1/run.json")).unwrap();
    assert!(run.contains("-memzip_mdc_bytes 4096"), "{run}");
}

#[test]
fn a_run_whose_files_do_not_parse_is_run_again() {
    let dir = common::temp_dir("sweep-damaged");
    let runner = write_runner(&dir);
    let spec = write_spec(&dir, &["none"]); // 3 runs
    let out = dir.join("results");
    let count = dir.join("count");
    let runners = Runners::single(bash_recording("COUNT", &count, &runner));
    let runs = expand(&load_spec(&spec).unwrap(), &dir).unwrap();
    assert_eq!(sweep(&runs, &out, &runners, 1).unwrap().succeeded, 3);
    // ints-none's run.json cut short (a full disk), floats-none-o1 given a broken stats.json.
    let run_json = out.join("ints-none/run.json");
    let text = fs::read(&run_json).unwrap();
    fs::write(&run_json, &text[..text.len() / 2]).unwrap();
    fs::write(out.join("floats-none-o1/stats.json"), "{\"total\": ").unwrap();
    let before = calls(&count);
    let sweep_out = Command::new(env!("CARGO_BIN_EXE_memzip"))
        .arg("sweep")
        .arg(&spec)
        .arg("--out")
        .arg(&out)
        .arg("--runner")
        .args(["bash", runner.to_str().unwrap()])
        .env("COUNT", &count)
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&sweep_out.stderr);
    assert!(sweep_out.status.success(), "{stderr}");
    assert!(stderr.contains("3 runs, 1 already done, 2 to run"), "{stderr}");
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("is damaged")).collect();
    assert_eq!(said.len(), 2, "one line per damaged run: {stderr}");
    assert!(
        said.iter().any(|l| l.starts_with("memzip sweep: ints-none is damaged (")
            && l.contains("run.json: not valid JSON: ")
            && l.ends_with("): running it again")),
        "{stderr}"
    );
    assert_eq!(calls(&count) - before, 2, "only the damaged runs ran again");
    let redone: serde_json::Value = serde_json::from_str(&fs::read_to_string(&run_json).unwrap()).unwrap();
    assert_eq!(redone["codec"], "none");
    assert!(!out.join("floats-none-o1/stats.json").exists(), "the run was replaced, not patched");
}

/// Whether process `pid` is gone (or a zombie nobody reaped yet).
fn gone(pid: &str) -> bool {
    match fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('Z')),
    }
}

#[test]
fn a_killed_sweep_takes_its_simulations_with_it_and_owns_its_directory_meanwhile() {
    let dir = common::temp_dir("sweep-kill");
    let runner = write_runner(&dir);
    let spec = write_spec(&dir, &["none", "bdi"]); // 6 runs
    let out = dir.join("results");
    let pids = dir.join("pids");
    let sweep_cmd = |sleep: &str| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_memzip"));
        c.arg("sweep").arg(&spec).arg("--out").arg(&out).arg("-j").arg("2").arg("--runner").arg("bash").arg(&runner);
        c.env("COUNT", dir.join("count")).env("SLEEP", sleep).env("PIDS", &pids).current_dir(&dir);
        c.stdout(Stdio::null()).stderr(Stdio::piped());
        c
    };
    let mut first = sweep_cmd("60").spawn().unwrap();
    let start = Instant::now();
    let started = || fs::read_to_string(&pids).map(|s| s.lines().count()).unwrap_or(0);
    while started() < 2 && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(started(), 2, "two runners started");

    // A second sweep into the same directory refuses with one line.
    let second = sweep_cmd("0").output().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(1), "{stderr}");
    let expected = format!("memzip: error: {}: another sweep (pid {}) is still running", out.display(), first.id());
    assert!(stderr.starts_with(&expected) && stderr.lines().count() == 1, "{stderr}");

    first.kill().unwrap(); // SIGKILL: the sweep cannot clean up itself
    first.wait().unwrap();
    let orphans = || -> Vec<String> {
        let text = fs::read_to_string(&pids).unwrap();
        text.split_whitespace().filter(|pid| !gone(pid)).map(String::from).collect()
    };
    let killed = Instant::now();
    while !orphans().is_empty() && killed.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(orphans().is_empty(), "runners and their children outlived the sweep: {:?}", orphans());
    assert!(killed.elapsed() < Duration::from_secs(5), "took {:?}", killed.elapsed());

    // The killed sweep's lock is stale: a rerun takes it and finishes everything.
    let rerun = sweep_cmd("0").output().unwrap();
    assert!(rerun.status.success(), "{}", String::from_utf8_lossy(&rerun.stderr));
    let done = fs::read_dir(&out).unwrap().flatten().filter(|e| e.path().join("run.json").is_file()).count();
    assert_eq!(done, 6);
    assert!(!out.join(".sweep.lock").exists(), "the lock goes with the sweep");
}

/// `memzip sweep SPEC --out OUT` with the default runners, in `dir`.
fn default_sweep(dir: &Path, spec: &str) -> std::process::Output {
    let path = dir.join("spec.json");
    fs::write(&path, spec).unwrap();
    Command::new(env!("CARGO_BIN_EXE_memzip"))
        .arg("sweep")
        .arg(&path)
        .arg("--out")
        .arg(dir.join("out"))
        .current_dir(dir)
        .output()
        .unwrap()
}

#[test]
fn codecs_and_benchmarks_are_checked_before_launching() {
    // A repository whose sim-run.sh only records that it was launched.
    let dir = common::temp_dir("sweep-validate");
    fs::create_dir_all(dir.join("scripts")).unwrap();
    fs::write(dir.join("scripts/sim-run.sh"), format!("touch {}\n", dir.join("launched").display())).unwrap();
    fs::write(dir.join("scripts/bench.sh"), format!("touch {}\n", dir.join("launched").display())).unwrap();
    fs::create_dir_all(dir.join("benchmarks/rodinia")).unwrap();
    fs::write(dir.join("benchmarks/rodinia/bfs.env"), "SUITE=rodinia\nPRESETS=\"tiny small\"\nSTATUS=runs\n").unwrap();
    for (spec, expected) in [
        (r#"{"runs": [{"name": "a", "argv": ["x"], "codecs": ["none", "zip"]}]}"#, "memzip: error: run a-zip: codec 'zip': invalid codec 'zip'"),
        (
            r#"{"runs": [{"name": "a", "argv": ["x"], "codecs": ["e2mc16:pdw=4,pdw=8"]}]}"#,
            "memzip: error: run a-e2mc16_pdw_4_pdw_8: codec 'e2mc16:pdw=4,pdw=8': invalid e2mc16 knob 'pdw'",
        ),
        (r#"{"runs": [{"benchmark": "nosuch", "codecs": ["none"]}]}"#, "memzip: error: run nosuch-tiny-none: unknown benchmark 'nosuch'"),
        (
            r#"{"runs": [{"name": "a", "argv": ["x"], "codecs": ["e2mc16:sampling=offline"]}]}"#,
            "memzip: error: run a-e2mc16_sampling_offline: codec 'e2mc16:sampling=offline' samples offline but no option line gives its table",
        ),
        (
            r#"{"runs": [{"benchmark": "bfs", "presets": ["paper"], "codecs": ["none"]}]}"#,
            "memzip: error: run bfs-paper-none: benchmark 'bfs' has presets tiny, small, not 'paper'",
        ),
    ] {
        let out = default_sweep(&dir, spec);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.starts_with(expected) && stderr.lines().count() == 1, "{stderr}");
        assert!(!dir.join("launched").exists(), "nothing launched for {spec}");
    }
    let out = default_sweep(
        &dir,
        r#"{"runs": [{"benchmark": "rodinia/bfs", "presets": ["small"], "codecs": ["none", "e2mc16:sampling=offline"],
            "option_sets": [["-memzip_e2mc_sampling offline:auto"]]}]}"#,
    );
    assert!(dir.join("launched").exists(), "a valid sweep launches: {}", String::from_utf8_lossy(&out.stderr));

    // The repository's own sweeps pass the check.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for entry in fs::read_dir(repo.join("benchmarks/sweeps")).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "json") {
            let runs = expand(&load_spec(&entry.path()).unwrap(), &repo).unwrap();
            memzip_study::sweep::validate(&runs, &repo).unwrap_or_else(|e| panic!("{}: {e}", entry.path().display()));
        }
    }
}

#[test]
fn a_failure_line_says_why() {
    let dir = common::temp_dir("sweep-cause");
    let runner = write_runner(&dir);
    let spec = dir.join("spec.json");
    fs::write(&spec, r#"{"runs": [{"name": "ints", "argv": ["p"], "codecs": ["bad"]}]}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_memzip"))
        .args(["sweep", spec.to_str().unwrap(), "--out", dir.join("out").to_str().unwrap(), "--runner", "bash"])
        .arg(&runner)
        .env("COUNT", dir.join("count"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.lines().any(|l| l.starts_with("[1/1] ints-bad FAILED: bad codec (")), "{stderr}");
}

#[test]
fn a_run_past_its_timeout_is_stopped_and_fails_while_the_others_finish() {
    // codec "slow" sleeps 60 s; --timeout 1 must stop it (and its sleep) and go on.
    let dir = common::temp_dir("sweep-timeout");
    let runner = dir.join("slow.sh");
    fs::write(
        &runner,
        format!("[[ \"$2\" != slow ]] || export SLEEP=60\nexec bash {} \"$@\"\n", write_runner(&dir).display()),
    )
    .unwrap();
    let spec = dir.join("spec.json");
    fs::write(&spec, r#"{"runs": [{"name": "p", "argv": ["p"], "codecs": ["none", "slow", "bdi"]}]}"#).unwrap();
    let pids = dir.join("pids");
    let sweep_cmd = |timeout: &str| {
        Command::new(env!("CARGO_BIN_EXE_memzip"))
            .args(["sweep", spec.to_str().unwrap(), "--out", dir.join("out").to_str().unwrap(), "--timeout", timeout])
            .args(["--runner", "bash"])
            .arg(&runner)
            .env("COUNT", dir.join("count"))
            .env("PIDS", &pids)
            .output()
            .unwrap()
    };
    let out = sweep_cmd("1");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.lines().any(|l| l.starts_with("[2/3] p-slow FAILED: timed out after 1 s (--timeout): stopped (")),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 runs: 0 already done, 2 succeeded, 1 failed (p-slow)"));
    assert!(dir.join("out/p-bdi/run.json").is_file(), "the run after the stopped one ran");
    assert!(!dir.join("out/p-slow").exists() && dir.join("out/p-slow.failed/reason.txt").is_file());
    let stopped = fs::read_to_string(&pids).unwrap();
    assert!(stopped.split_whitespace().all(gone), "the stopped run's processes outlived it: {stopped}");

    let bad = sweep_cmd("soon");
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("invalid value 'soon' for '--timeout <DURATION>'") && stderr.contains("30m"), "{stderr}");
}

#[test]
fn timeouts_are_seconds_or_have_a_unit() {
    use memzip_study::sweep::parse_timeout;
    assert_eq!(parse_timeout("90"), Ok(Duration::from_secs(90)));
    assert_eq!(parse_timeout("45s"), Ok(Duration::from_secs(45)));
    assert_eq!(parse_timeout("30m"), Ok(Duration::from_secs(1800)));
    assert_eq!(parse_timeout("1.5h"), Ok(Duration::from_secs(5400)));
    assert_eq!(
        parse_timeout("1e9h"),
        Ok(Duration::from_secs(3_600_000_000_000)),
        "far beyond any run: no limit in effect"
    );
    for bad in ["", "m", "0", "-5", "2d", "inf", "NaN"] {
        let error = parse_timeout(bad).unwrap_err();
        assert!(error.contains("is not a duration"), "{bad}: {error}");
    }
    let error = parse_timeout("1e300").unwrap_err();
    assert!(error.contains("'1e300' is too large"), "{error}");
}

#[test]
fn runs_start_in_the_spec_order() {
    // Each run records its codec when it starts, then sleeps; with -j 2 the
    // i-th run to start is the spec's i-th, give or take one (two start at once).
    let dir = common::temp_dir("sweep-order");
    let runner = dir.join("order.sh");
    fs::write(
        &runner,
        format!(
            "{CODEC_AND_OUT}echo \"$c\" >> \"$STARTS\"; sleep 0.3; mkdir -p \"$o\"; echo '{{}}' > \"$o/run.json\"\n"
        ),
    )
    .unwrap();
    let codecs = ["none", "bdi", "mag_bdi", "fpc", "cpack", "cpack_z", "e2mc16", "bpc"];
    let spec = dir.join("spec.json");
    let list: Vec<String> = codecs.iter().map(|c| format!("\"{c}\"")).collect();
    fs::write(&spec, format!(r#"{{"runs": [{{"name": "p", "argv": ["x"], "codecs": [{}]}}]}}"#, list.join(", ")))
        .unwrap();
    let runs = expand(&load_spec(&spec).unwrap(), &dir).unwrap();
    let starts = dir.join("starts");
    let runners =
        Runners { program: bash_recording("STARTS", &starts, &runner), benchmark: vec!["false".into()], timeout: None };
    let outcome = sweep(&runs, &dir.join("out"), &runners, 2).unwrap();
    assert_eq!(outcome.succeeded, codecs.len());
    let started: Vec<String> = fs::read_to_string(&starts).unwrap().lines().map(String::from).collect();
    assert_eq!(started.len(), codecs.len());
    for (i, codec) in started.iter().enumerate() {
        let position = codecs.iter().position(|c| c == codec).unwrap();
        assert!(position.abs_diff(i) <= 1, "run {codec} (spec position {position}) started {i}th: {started:?}");
    }
}

#[test]
fn a_run_whose_directory_appears_meanwhile_is_not_run_again() {
    // The first run also leaves the third's result, as another sweep into another
    // directory would once its run is copied in: the third is skipped, not rerun.
    let dir = common::temp_dir("sweep-meanwhile");
    let runner = dir.join("meanwhile.sh");
    fs::write(
        &runner,
        format!(
            "{CODEC_AND_OUT}echo \"$c\" >> \"$STARTS\"; mkdir -p \"$o\"; echo '{{}}' > \"$o/run.json\"\n\
             if [[ $c == none ]]; then mkdir -p \"$(dirname \"$o\")/p-fpc\"; echo '{{}}' > \"$(dirname \"$o\")/p-fpc/run.json\"; fi\n"
        ),
    )
    .unwrap();
    let spec = dir.join("spec.json");
    fs::write(&spec, r#"{"runs": [{"name": "p", "argv": ["x"], "codecs": ["none", "bdi", "fpc"]}]}"#).unwrap();
    let runs = expand(&load_spec(&spec).unwrap(), &dir).unwrap();
    let starts = dir.join("starts");
    let runners =
        Runners { program: bash_recording("STARTS", &starts, &runner), benchmark: vec!["false".into()], timeout: None };
    let outcome = sweep(&runs, &dir.join("out"), &runners, 1).unwrap();
    assert_eq!((outcome.skipped, outcome.succeeded, outcome.failed.len()), (1, 2, 0));
    assert_eq!(fs::read_to_string(&starts).unwrap(), "none\nbdi\n", "fpc never started");
    assert!(dir.join("out/p-fpc/run.json").is_file());
}

#[test]
fn finished_runs_record_their_configuration_and_a_later_sweep_reuses_the_same_ones() {
    let dir = common::temp_dir("sweep-reuse");
    let (runners, count) = benchmark_runners(&dir);
    // A study: none with a trace, mag_bdi without.
    let study_spec = dir.join("study.json");
    fs::write(
        &study_spec,
        r#"{"runs": [{"benchmark": "rodinia/bfs", "codecs": ["none"], "option_sets": [["-memzip_verify 1", "-memzip_trace trace.zst"]]},
                     {"benchmark": "rodinia/bfs", "codecs": ["mag_bdi"], "option_sets": [["-memzip_verify 1"]]}]}"#,
    )
    .unwrap();
    let study = dir.join("study");
    sweep(&expand(&load_spec(&study_spec).unwrap(), &dir).unwrap(), &study, &runners, 1).unwrap();
    let record = RunRecord::read(&study.join("rodinia-bfs-tiny-none")).unwrap().expect("a finished run has sweep.json");
    assert_eq!(
        (record.benchmark.as_deref(), record.preset.as_deref(), record.codec.as_str(), record.variant.as_deref()),
        (Some("rodinia/bfs"), Some("tiny"), "none", None)
    );
    assert_eq!(record.options, ["-memzip_verify 1", "-memzip_trace trace.zst"]);

    // A sensitivity sweep: its none and mag_bdi runs and its `lat1x` variant are the
    // study's configurations (the trace aside); `mdc4k` is not.
    let sens_spec = dir.join("sens.json");
    fs::write(
        &sens_spec,
        r#"{"runs": [{"benchmark": "rodinia/bfs", "codecs": ["none", "mag_bdi"], "option_sets": [["-memzip_verify 1"]]},
                     {"benchmark": "rodinia/bfs", "name": "rodinia-bfs.lat1x", "codecs": ["mag_bdi"], "option_sets": [["-memzip_verify 1"]]},
                     {"benchmark": "rodinia/bfs", "name": "rodinia-bfs.mdc4k", "codecs": ["mag_bdi"],
                      "option_sets": [["-memzip_verify 1", "-memzip_mdc_bytes 4096"]]}]}"#,
    )
    .unwrap();
    let sens_runs = expand(&load_spec(&sens_spec).unwrap(), &dir).unwrap();
    let sens = dir.join("sens");
    fs::create_dir_all(&sens).unwrap();
    let reused = reuse(&sens_runs, &sens, &recorded_runs(std::slice::from_ref(&study)).unwrap()).unwrap();
    let ids: Vec<&str> = reused.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["rodinia-bfs-tiny-none", "rodinia-bfs-tiny-mag_bdi", "rodinia-bfs.lat1x-tiny-mag_bdi"]);
    let copy = sens.join("rodinia-bfs.lat1x-tiny-mag_bdi");
    assert_eq!(
        fs::read_to_string(copy.join("run.json")).unwrap(),
        fs::read_to_string(study.join("rodinia-bfs-tiny-mag_bdi/run.json")).unwrap()
    );
    let record = RunRecord::read(&copy).unwrap().unwrap();
    assert_eq!(record.variant.as_deref(), Some("lat1x"));
    assert_eq!(record.reused_from.as_deref(), Some("study/rodinia-bfs-tiny-mag_bdi"));
    let source = RunRecord::read(&study.join("rodinia-bfs-tiny-mag_bdi")).unwrap().unwrap();
    assert_eq!((source.variant, source.reused_from), (None, None), "the copy's record is its own file");
    // Only the mdc4k run is simulated.
    let before = calls(&count);
    let outcome = sweep(&sens_runs, &sens, &runners, 1).unwrap();
    assert_eq!((outcome.skipped, outcome.succeeded), (3, 1));
    assert_eq!(calls(&count), before + 1);
    assert!(RunRecord::read(&sens.join("rodinia-bfs.mdc4k-tiny-mag_bdi")).unwrap().unwrap().reused_from.is_none());
    // Nothing left to reuse on a second pass.
    assert!(reuse(&sens_runs, &sens, &recorded_runs(std::slice::from_ref(&study)).unwrap()).unwrap().is_empty());

    // Results made before sweeps wrote records get them from their spec.
    fs::remove_file(study.join("rodinia-bfs-tiny-none/sweep.json")).unwrap();
    let study_runs = expand(&load_spec(&study_spec).unwrap(), &dir).unwrap();
    assert_eq!(adopt(&study_runs, &study).unwrap(), 1);
    assert_eq!(RunRecord::read(&study.join("rodinia-bfs-tiny-none")).unwrap(), Some(study_runs[0].record()));
    assert_eq!(adopt(&study_runs, &study).unwrap(), 0);

    // A codec run of an older timing model is run again and replaced; a
    // none run of that model stays (memzip adds none no cycles).
    for id in ["rodinia-bfs-tiny-none", "rodinia-bfs-tiny-mag_bdi"] {
        let mut old = RunRecord::read(&study.join(id)).unwrap().unwrap();
        old.timing_model = 1;
        fs::write(study.join(id).join("sweep.json"), serde_json::to_string(&old).unwrap()).unwrap();
    }
    fs::write(study.join("rodinia-bfs-tiny-mag_bdi/old-model.txt"), "").unwrap();
    let before = calls(&count);
    let outcome = sweep(&study_runs, &study, &runners, 1).unwrap();
    assert_eq!((outcome.skipped, outcome.succeeded), (1, 1));
    assert_eq!(calls(&count), before + 1);
    let rerun = study.join("rodinia-bfs-tiny-mag_bdi");
    assert_eq!(RunRecord::read(&rerun).unwrap().unwrap().timing_model, TIMING_MODEL);
    assert!(!rerun.join("old-model.txt").exists(), "the superseded run's files are gone");
    assert_eq!(RunRecord::read(&study.join("rodinia-bfs-tiny-none")).unwrap().unwrap().timing_model, 1);
}

#[test]
fn runs_made_before_every_request_met_memzip_or_the_channel_key_or_with_unlimited_compressors_are_no_source() {
    let dir = common::temp_dir("sweep-reuse-model");
    let (runners, _) = benchmark_runners(&dir);
    let spec = dir.join("spec.json");
    fs::write(
        &spec,
        r#"{"runs": [{"benchmark": "rodinia/bfs", "codecs": ["mag_bdi"], "gpus": ["gtx580", "qv100"], "option_sets": [["-memzip_verify 1"]]}]}"#,
    )
    .unwrap();
    let runs = expand(&load_spec(&spec).unwrap(), &dir).unwrap();
    let study = dir.join("study");
    sweep(&runs, &study, &runners, 1).unwrap();
    let (gtx580, qv100) = (study.join("rodinia-bfs-tiny-mag_bdi"), study.join("rodinia-bfs-tiny-qv100-mag_bdi"));
    // stats.json without request counts: made while partial requests bypassed memzip.
    for run in [&gtx580, &qv100] {
        fs::write(run.join("stats.json"), r#"{"total": {"dram_bursts": 10}}"#).unwrap();
    }
    // Nor the partial-read counters: made before the channel-key fix, which
    // changes dev's codec runs on every GPU.
    assert!(recorded_runs(std::slice::from_ref(&study)).unwrap().is_empty());
    let current = r#"{"total": {"dram_bursts": 10, "partial": {"filled_sectors": 0}}}"#;
    fs::write(gtx580.join("stats.json"), current).unwrap();
    let sources = recorded_runs(std::slice::from_ref(&study)).unwrap();
    let ids: Vec<_> = sources.iter().map(|(_, r)| r.id.as_str()).collect();
    assert_eq!(
        ids,
        ["rodinia-bfs-tiny-mag_bdi"],
        "dev's GTX580 runs need no request counts (none of theirs was partial)"
    );
    fs::write(qv100.join("stats.json"), current).unwrap();
    assert_eq!(recorded_runs(std::slice::from_ref(&study)).unwrap().len(), 1, "the QV100's do");
    let counted = r#"{"total": {"dram_bursts": 10, "requests": {"read/32": 4}, "partial": {"filled_sectors": 0}}}"#;
    fs::write(qv100.join("stats.json"), counted).unwrap();
    assert_eq!(recorded_runs(std::slice::from_ref(&study)).unwrap().len(), 2);
    // A none run reads no metadata: the channel key did not change it.
    let mut none = RunRecord::read(&gtx580).unwrap().unwrap();
    none.codec = "none".into();
    none.write(&gtx580).unwrap();
    fs::write(gtx580.join("stats.json"), r#"{"total": {"dram_bursts": 10}}"#).unwrap();
    assert_eq!(recorded_runs(std::slice::from_ref(&study)).unwrap().len(), 2);

    // An MGPUSim run without the platform in run.json had unlimited compressors.
    let mut record = RunRecord::read(&qv100).unwrap().unwrap();
    record.simulator = "mgpusim".into();
    record.write(&qv100).unwrap();
    fs::write(qv100.join("run.json"), r#"{"codec": "mag_bdi"}"#).unwrap();
    assert_eq!(recorded_runs(std::slice::from_ref(&study)).unwrap().len(), 1);
    fs::write(qv100.join("run.json"), r#"{"codec": "mag_bdi", "platform": {"buffer_bytes": 4096}}"#).unwrap();
    assert_eq!(recorded_runs(std::slice::from_ref(&study)).unwrap().len(), 2);
}

#[test]
fn a_run_made_before_a_model_change_is_run_again_and_replaced() {
    let dir = common::temp_dir("sweep-model-change");
    let (runners, count) = benchmark_runners(&dir);
    let spec = dir.join("spec.json");
    fs::write(&spec, r#"{"runs": [{"benchmark": "rodinia/bfs", "codecs": ["none", "mag_bdi"]}]}"#).unwrap();
    let runs = expand(&load_spec(&spec).unwrap(), &dir).unwrap();
    let out = dir.join("out");
    sweep(&runs, &out, &runners, 1).unwrap();
    // Both made before the channel-key fix (no partial.filled_sectors): the
    // codec run missed it, the none run (no metadata read) did not.
    for id in ["rodinia-bfs-tiny-none", "rodinia-bfs-tiny-mag_bdi"] {
        fs::write(out.join(id).join("stats.json"), r#"{"total": {"dram_bursts": 10}}"#).unwrap();
    }
    assert!(has_result(&out, "rodinia-bfs-tiny-none"));
    assert!(!has_result(&out, "rodinia-bfs-tiny-mag_bdi"));
    let before = calls(&count);
    let outcome = sweep(&runs, &out, &runners, 1).unwrap();
    assert_eq!((outcome.skipped, outcome.succeeded, calls(&count) - before), (1, 1, 1));
    assert!(!out.join("rodinia-bfs-tiny-mag_bdi/stats.json").exists(), "the old run's files are replaced");
    assert_eq!(sweep(&runs, &out, &runners, 1).unwrap().skipped, 2, "the new run is current");
}

#[test]
fn an_estimate_prices_each_pending_run_at_its_programs_none_run() {
    let dir = common::temp_dir("sweep-estimate");
    let runners = Runners {
        program: vec!["false".into()],
        benchmark: bash_recording("COUNT", &dir.join("count"), &write_runner(&dir)),
        timeout: None,
    };
    let spec = dir.join("spec.json");
    fs::write(
        &spec,
        r#"{"runs": [{"benchmark": "rodinia/bfs", "codecs": ["none", "mag_bdi", "bpc"], "gpus": ["gtx580", "qv100"]},
                     {"benchmark": "rodinia/bfs", "name": "rodinia-bfs.fill", "codecs": ["mag_bdi"], "gpus": ["qv100"]}]}"#,
    )
    .unwrap();
    let runs = expand(&load_spec(&spec).unwrap(), &dir).unwrap();
    // Done in the grid's own directory: the GTX580's none and mag_bdi runs.
    let out = dir.join("out");
    let gtx580_done: Vec<PlannedRun> =
        runs.iter().filter(|r| r.gpu == Gpu::Gtx580 && r.codec != "bpc").cloned().collect();
    sweep(&gtx580_done, &out, &runners, 1).unwrap();
    fs::write(out.join("rodinia-bfs-tiny-none/run.json"), r#"{"codec": "none", "cpu_seconds": 100.0}"#).unwrap();
    let before = estimate(&runs, &out, &[]).unwrap();
    assert_eq!(before.done, 2);
    let priced: Vec<(&str, Option<f64>)> =
        before.runs.iter().map(|r| (r.id.as_str(), r.basis.as_ref().map(|(s, _)| *s))).collect();
    assert_eq!(
        priced,
        [
            ("rodinia-bfs-tiny-bpc", Some(100.0)),
            ("rodinia-bfs-tiny-qv100-none", None),
            ("rodinia-bfs-tiny-qv100-mag_bdi", None),
            ("rodinia-bfs-tiny-qv100-bpc", None),
            ("rodinia-bfs.fill-tiny-qv100-mag_bdi", None),
        ],
        "another GPU's none run is not this one's"
    );
    assert_eq!(before.runs[0].basis.as_ref().unwrap().1, "out/rodinia-bfs-tiny-none");
    assert_eq!((before.cpu_seconds(), before.unknown().len()), (100.0, 4));
    // The QV100's none run in another results directory prices its codec runs,
    // the `.fill` variant's too; its own none run is then done elsewhere, not here.
    let qv100_dir = dir.join("qv100-none");
    let qv100_none: Vec<PlannedRun> =
        runs.iter().filter(|r| r.gpu == Gpu::Qv100 && r.codec == "none").cloned().collect();
    sweep(&qv100_none, &qv100_dir, &runners, 1).unwrap();
    fs::write(qv100_dir.join("rodinia-bfs-tiny-qv100-none/run.json"), r#"{"codec": "none", "cpu_seconds": 300.5}"#)
        .unwrap();
    let after = estimate(&runs, &out, &[qv100_dir]).unwrap();
    assert_eq!(after.unknown(), Vec::<&str>::new());
    assert_eq!(after.cpu_seconds(), 100.0 + 4.0 * 300.5);
}

#[test]
fn an_estimate_without_any_none_run_totals_zero_not_minus_zero() {
    let dir = common::temp_dir("sweep-estimate-none");
    let spec = dir.join("spec.json");
    fs::write(&spec, r#"{"runs": [{"benchmark": "rodinia/bfs", "codecs": ["none", "mag_bdi"], "gpus": ["qv100"]}]}"#)
        .unwrap();
    let runs = expand(&load_spec(&spec).unwrap(), &dir).unwrap();
    let text = estimate(&runs, &dir.join("out"), &[]).unwrap().with_jobs(1).to_string();
    assert!(
        text.ends_with("2 runs to go (0 done): 0 estimated at 0 CPU-s (0.0 CPU-hours; 0.0 hours at -j 1); 2 without a none run to estimate them by\n"),
        "{text}"
    );
}

#[test]
fn only_the_same_benchmark_codec_simulator_and_options_are_the_same_configuration() {
    let spec = r#"{"runs": [{"benchmark": "rodinia/bfs", "codecs": ["mag_bdi"], "option_sets": [["-memzip_verify 1", "-memzip_mdc_bytes 4096"]]},
                            {"name": "p", "argv": ["x"], "codecs": ["mag_bdi"]}]}"#;
    let dir = common::temp_dir("sweep-same");
    fs::write(dir.join("spec.json"), spec).unwrap();
    let runs = expand(&load_spec(&dir.join("spec.json")).unwrap(), &dir).unwrap();
    let base = runs[0].record();
    assert!(base.same_configuration(&base.clone()));
    let mut traced = base.clone();
    traced.options.push("-memzip_trace t.zst".into());
    assert!(base.same_configuration(&traced), "the trace only records the blocks");
    let changes: [fn(&mut RunRecord); 6] = [
        |r| r.simulator = "v3.2.1".into(),
        |r| r.timing_model -= 1,
        |r| r.options.reverse(),
        |r| r.codec = "mag_bdi:bases=8+4+2".into(),
        |r| r.preset = Some("small".into()),
        |r| r.benchmark = Some("lonestar/bfs".into()),
    ];
    for change in changes {
        let mut other = base.clone();
        change(&mut other);
        assert!(!base.same_configuration(&other), "{other:?}");
    }
    // memzip adds no cycles to none: its runs of every timing model simulate the same.
    let mut none = base.clone();
    none.codec = "none".into();
    let mut older_none = none.clone();
    older_none.timing_model -= 1;
    assert!(none.same_configuration(&older_none));
    // Records written before timing models were numbered are the first model.
    let mut unnumbered = serde_json::to_value(&base).unwrap();
    unnumbered.as_object_mut().unwrap().remove("timing_model");
    let unnumbered: RunRecord = serde_json::from_value(unnumbered).unwrap();
    assert_eq!(unnumbered.timing_model, 1);
    assert!(!base.same_configuration(&unnumbered), "a codec run of the flawed model 1 is not reused");
    let program = runs[1].record();
    assert_eq!(program.program.as_deref(), Some("p"));
    assert!(!program.same_configuration(&program.clone()), "a command line's record does not hold its command");
}
