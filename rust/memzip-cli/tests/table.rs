//! `memzip table` on the run directories under tests/fixtures/runs.
//!
//! The fixtures hold the simulator's `-memzip_stats_json` format (every
//! McStats field, two controllers), a gpgpu-sim style log with two kernels
//! (the table takes the last `gpu_tot_sim_cycle`), and the runner's
//! `run.json` (absent for `orphan`, without `codec` for the bfs runs).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use memzip_study::run::{load_run, RunError};
use memzip_study::table::load_rows;

const RUNS: [&str; 6] = ["vecadd-none", "vecadd-bdi", "bfs-none", "vecadd-fpc", "bfs-mag_bdi", "orphan"];

fn fixture(name: &str) -> String {
    format!("tests/fixtures/runs/{name}")
}

/// Runs the binary from the crate directory so fixture paths are relative.
fn memzip(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_memzip"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .expect("run memzip")
}

fn table_args(extra: &[&str]) -> Vec<String> {
    let mut args = vec!["table".to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(RUNS.iter().map(|r| fixture(r)));
    args
}

fn stdout_of(args: &[String]) -> String {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = memzip(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn prints_the_comparison_table() {
    // vecadd none: reads 4096 x 128 B + writes 2048 x 128 B = 786432 B.
    // vecadd bdi: reads 4096 x 3 bursts x 32 B + writes 2048 x 96 B
    // + metadata fills 600 x 32 B + write-backs 64 x 32 B = 611072 B (77.7%);
    // 1536 of 2048 blocks' bits: raw CR 2048/1536; MDC 5400 hits of 6000.
    // Energy (vecadd only; the bfs fixtures predate the energy model): none
    // 1e6 pJ, bdi 0.8e6 pJ (80%) in 80% of the cycles: EDP 64%; fpc 1.1e6 pJ
    // in 125% of the cycles: EDP 137.5%.
    // Estimates (vecadd's DRAM counters): none keeps the bus busy 49152 of 96000
    // DRAM cycles (0.512); bdi's 27034 busy cycles are 55% of none's, so its
    // bus estimate is 1 / (1 - 0.512 x 0.45) = 1.299; its 4000 activations x 12
    // cycles allow 96000 / 48000 = 2.0; it took 0.25 / 0.299 = 83.5% of the
    // smaller. fpc launched 3 kernels against none's 2: `3!`.
    let expected = "\
program  run                   cycles  speedup  bus estimate  act bound  of estimate  kernels  DRAM bytes  DRAM vs none  DRAM util  raw CR  eff CR  MDC hit  energy uJ  energy vs none  EDP vs none  verify chk/fail  output  wall s
vecadd   none                  100000    1.000         1.000      8.000            -        2      786432        100.0%      0.512   1.000   1.000        -      1.000          100.0%       100.0%                -  ok        12.5
vecadd   bdi                    80000    1.250         1.299      2.000        83.5%        2      611072         77.7%      0.438   1.333   1.333    90.0%      0.800           80.0%        64.0%           6144/0  ok        13.2
vecadd   fpc:variant=paper004  125000    0.800             -          -            -       3!      848896        107.9%          -   1.143   1.143    50.0%      1.100          110.0%       137.5%           6144/2  FAIL      20.0
bfs      none                   50000    1.000             -          -            -        -       51200        100.0%          -   1.000   1.000        -          -               -            -                -  -            -
bfs      mag_bdi                40000    1.250             -          -            -        -       13120         25.6%          -   4.000   4.000    99.0%          -               -            -                -  ok           -
-        cpack                   7000        -             -          -            -        -        1440             -          -   1.333   1.143        -          -               -            -                -  -            -
";
    assert_eq!(stdout_of(&table_args(&[])), expected);
}

#[test]
fn prints_a_markdown_table() {
    let markdown = stdout_of(&table_args(&["--markdown"]));
    let lines: Vec<&str> = markdown.lines().collect();
    assert_eq!(
        lines[0],
        "| program | run | cycles | speedup | bus estimate | act bound | of estimate | kernels | DRAM bytes | DRAM vs none \
         | DRAM util | raw CR | eff CR | MDC hit | energy uJ | energy vs none | EDP vs none | verify chk/fail | output \
         | wall s |"
    );
    assert_eq!(
        lines[1],
        "|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|---:|"
    );
    assert_eq!(
        lines[3],
        "| vecadd | bdi | 80000 | 1.250 | 1.299 | 2.000 | 83.5% | 2 | 611072 | 77.7% | 0.438 | 1.333 | 1.333 | 90.0% \
         | 0.800 | 80.0% | 64.0% | 6144/0 | ok | 13.2 |"
    );
    assert_eq!(lines.len(), 8);
}

#[test]
fn prints_csv_at_full_precision() {
    let csv = stdout_of(&table_args(&["--csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "program,run,dir,cycles,speedup,bus_estimate,activation_bound,gain_share,kernel_launches,kernel_launches_differ,\
         dram_bytes,dram_percent_of_none,dram_utilization,raw_cr,effective_cr,mdc_hit_rate,\
         verify_checked,verify_failures,output_ok,wall_seconds,energy_pj,dram_energy_pj,codec_energy_pj,\
         metadata_energy_pj,energy_percent_of_none,edp_js,edp_percent_of_none,gpu_energy_pj,gpu_dram_energy_pj,\
         gpu_total_energy_pj,gpu_total_energy_percent_of_none,gpu_edp_js,gpu_edp_percent_of_none,timing_model"
    );
    let edp = |pj: f64, cycles: f64| pj * 1e-12 * cycles / 822e6;
    let bus_estimate = 1.0 / (1.0 - 49152.0 / 96000.0 * (1.0 - 27034.0 / 49152.0));
    assert_eq!(
        lines[1],
        format!("vecadd,none,tests/fixtures/runs/vecadd-none,100000,1,1,8,,2,false,786432,100,0.5125,1,1,,0,0,true,12.5,1000000,1000000,0,0,100,{},100,,,,,,,", edp(1e6, 1e5))
    );
    assert_eq!(
        lines[2],
        format!(
            "vecadd,bdi,tests/fixtures/runs/vecadd-bdi,80000,1.25,{},2,{},2,false,611072,{},0.4375,{},{},0.9,6144,0,true,13.25,800000,780000,15000,5000,80,{},{},,,,,,,",
            bus_estimate,
            0.25 / (bus_estimate - 1.0),
            100.0 * 611072.0 / 786432.0,
            2048.0 / 1536.0,
            4.0 / 3.0,
            edp(8e5, 8e4),
            100.0 * edp(8e5, 8e4) / edp(1e6, 1e5)
        )
    );
    assert_eq!(
        lines[6],
        format!(
            ",cpack,tests/fixtures/runs/orphan,7000,,,,,,,1440,,,{},{},,0,0,,,,,,,,,,,,,,,,",
            10240.0 / 7680.0,
            1280.0 / 1120.0
        )
    );
    assert_eq!(lines.len(), 7);
}

#[test]
fn library_reads_the_same_numbers() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/runs");
    let rows = load_rows(&RUNS.map(|r| dir.join(r))).unwrap();
    let fpc = &rows[2];
    assert_eq!((fpc.run.label.as_str(), fpc.run.stats_codec.as_str()), ("fpc:variant=paper004", "fpc"));
    assert_eq!((fpc.run.cycles, fpc.run.verify_checked, fpc.run.verify_failures), (125000, 6144, 2));
    assert_eq!((fpc.speedup, fpc.run.output_ok, fpc.run.wall_seconds), (Some(0.8), Some(false), Some(20.0)));
    let orphan = load_run(&dir.join("orphan")).unwrap();
    assert_eq!((orphan.program, orphan.label.as_str(), orphan.output_ok), (None, "cpack", None));
    let bdi = load_run(&dir.join("vecadd-bdi")).unwrap();
    assert_eq!(bdi.stored_sizes.into_iter().collect::<Vec<_>>(), [(64, 1024), (128, 1024)]);
}

/// Stored sizes count write-backs and copies together.
#[test]
fn stored_sizes_add_copies_to_write_backs() {
    let tmp = common::temp_dir("table-stored-sizes");
    let run = copy_run("vecadd-bdi", &tmp);
    edit_last(&run.join("stats.json"), "\"mag_sizes\": {},", "\"mag_sizes\": {\"64\": 6, \"32\": 2},");
    let sizes = load_run(&run).unwrap().stored_sizes;
    assert_eq!(sizes.into_iter().collect::<Vec<_>>(), [(32, 2), (64, 1030), (128, 1024)]);
}

/// A codec run of an older timing model says so in its label (`memzip
/// report` leaves such runs out; `memzip table` shows what it is given);
/// a `none` run of that model does not, since memzip adds it no cycles.
#[test]
fn a_run_of_an_older_timing_model_is_labelled() {
    let dir = common::temp_dir("table-timing-model");
    let record = |codec: &str, model: Option<u32>| {
        let model = model.map(|m| format!(r#","timing_model":{m}"#)).unwrap_or_default();
        format!(
            r#"{{"id":"x","benchmark":"b","preset":"tiny","codec":"{codec}","options":[],"simulator":"dev"{model}}}"#
        )
    };
    let (bdi, none) = (copy_run("vecadd-bdi", &dir), copy_run("vecadd-none", &dir));
    std::fs::write(bdi.join("sweep.json"), record("bdi", None)).unwrap();
    std::fs::write(none.join("sweep.json"), record("none", None)).unwrap();
    let rows = load_rows(&[none.clone(), bdi.clone()]).unwrap();
    let shown: Vec<_> = rows.iter().map(|row| (row.run.label.as_str(), row.run.timing_model)).collect();
    assert_eq!(shown, [("none", Some(1)), ("bdi (timing model 1)", Some(1))]);

    std::fs::write(bdi.join("sweep.json"), record("bdi", Some(memzip_study::run::TIMING_MODEL))).unwrap();
    let run = load_run(&bdi).unwrap();
    assert_eq!((run.label.as_str(), run.timing_model), ("bdi", Some(memzip_study::run::TIMING_MODEL)));
}

/// A copy of a fixture run that a test may break.
fn copy_run(name: &str, into: &Path) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(fixture(name));
    let dst = into.join(name);
    std::fs::create_dir_all(&dst).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dst.join(entry.file_name())).unwrap();
    }
    dst
}

fn error_of(dirs: &[&Path]) -> String {
    let mut args = vec!["table"];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    let out = memzip(&args);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stdout.is_empty());
    String::from_utf8(out.stderr).unwrap()
}

/// Replaces the last occurrence of `from`: in the fixtures' sorted JSON,
/// `total` comes after `controllers`.
fn edit_last(path: &Path, from: &str, to: &str) {
    let mut text = std::fs::read_to_string(path).unwrap();
    let at = text.rfind(from).unwrap_or_else(|| panic!("{} lacks {from}", path.display()));
    text.replace_range(at..at + from.len(), to);
    std::fs::write(path, text).unwrap();
}

#[test]
fn errors_name_the_file_and_what_is_missing() {
    let tmp = common::temp_dir("table-errors");

    let run = copy_run("vecadd-bdi", &tmp);
    std::fs::remove_file(run.join("stats.json")).unwrap();
    let err = error_of(&[&run]);
    assert!(err.starts_with(&format!("memzip: error: {}: cannot read: ", run.join("stats.json").display())), "{err}");

    let run = copy_run("bfs-none", &tmp);
    let stats = run.join("stats.json");
    edit_last(&stats, "\"hit_rate\": null,", "");
    let err = error_of(&[&run]);
    assert_eq!(err, format!("memzip: error: {}: missing field `total.metadata_cache.hit_rate`\n", stats.display()));

    let run = copy_run("vecadd-none", &tmp);
    edit_last(&run.join("stats.json"), "\"dram_bytes\": 786432", "\"dram_bytes\": \"lots\"");
    let err = error_of(&[&run]);
    assert!(err.contains("field `total.dram_bytes` is not a non-negative integer"), "{err}");

    let run = copy_run("vecadd-bdi", &tmp);
    edit_last(&run.join("stats.json"), "\"64\": 1024", "\"64\": -1");
    let err = error_of(&[&run]);
    assert!(err.contains("field `total.writes.mag_sizes.64` is not a non-negative integer"), "{err}");

    let run = copy_run("vecadd-none", &tmp);
    edit_last(&run.join("stats.json"), "\"dram_bytes\": 786432", "\"partial\": {\"reads\": 3}, \"dram_bytes\": 786432");
    let err = error_of(&[&run]);
    assert!(err.contains("field `total.partial.compressed_reads` is not a non-negative integer"), "{err}");

    let run = copy_run("vecadd-none", &tmp);
    std::fs::write(run.join("run.json"), "{\"program\": \"vecadd\", \"gpu\": \"h100\"}").unwrap();
    let err = error_of(&[&run]);
    assert!(err.ends_with("run.json: field `gpu` is not a GPU (gtx580, qv100, rtx3070)\n"), "{err}");

    let run = copy_run("orphan", &tmp);
    std::fs::write(run.join("sim.log"), "GPGPU-Sim: crashed before the first kernel ended\n").unwrap();
    let err = error_of(&[&run]);
    assert_eq!(
        err,
        format!(
            "memzip: error: {}: no `gpu_tot_sim_cycle = N` line (did the simulation finish?)\n",
            run.join("sim.log").display()
        )
    );

    let run = copy_run("bfs-mag_bdi", &tmp);
    std::fs::write(run.join("run.json"), "{\"program\": \"bfs\", \"output_ok\": \"yes\"}").unwrap();
    let err = error_of(&[&run]);
    assert!(
        err.contains(&format!("{}: field `output_ok` is not true or false", run.join("run.json").display())),
        "{err}"
    );

    let err = error_of(&[&tmp.join("absent")]);
    assert!(err.contains("absent: not a run directory"), "{err}");

    let first = copy_run("vecadd-none", &tmp.join("a"));
    let second = copy_run("vecadd-none", &tmp.join("b"));
    let err = error_of(&[&first, &second]);
    assert!(err.contains("both `none` runs of program vecadd"), "{err}");
}

/// Cuts `path` to its first half, as a write stopped by a full disk would.
fn truncate_half(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, &bytes[..bytes.len() / 2]).unwrap();
}

#[test]
fn a_damaged_run_is_listed_and_every_other_run_shown() {
    let tmp = common::temp_dir("table-damaged");
    let dirs: Vec<PathBuf> = RUNS.iter().map(|r| copy_run(r, &tmp)).collect();
    truncate_half(&dirs[1].join("stats.json")); // vecadd-bdi
    let mut args = vec!["table"];
    args.extend(dirs.iter().map(|d| d.to_str().unwrap()));
    let out = memzip(&args);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The header and the five other runs, fpc still against vecadd's none run.
    assert_eq!(stdout.lines().count(), 6, "{stdout}");
    assert!(stdout.lines().any(|l| l.starts_with("vecadd   fpc:variant=paper004  125000    0.800")), "{stdout}");
    assert!(!stdout.contains(" 80000 "), "the damaged run has no row: {stdout}");
    let stats = dirs[1].join("stats.json");
    assert!(stderr.starts_with(&format!("memzip: left out: {}: not valid JSON: ", stats.display())), "{stderr}");
    assert!(
        stderr.ends_with("memzip: error: 1 run directory left out (above); the other runs are shown\n"),
        "{stderr}"
    );
}

/// The same failures to a library caller: a variant it can match.
#[test]
fn run_errors_say_what_kind_they_are() {
    let tmp = common::temp_dir("table-error-kinds");
    assert!(matches!(load_run(&tmp.join("absent")), Err(RunError::NotARun { .. })));

    let run = copy_run("vecadd-bdi", &tmp);
    std::fs::remove_file(run.join("stats.json")).unwrap();
    let err = load_run(&run).unwrap_err();
    assert!(matches!(&err, RunError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound), "{err:?}");
    assert!(err.to_string().starts_with(&format!("{}: cannot read: ", run.join("stats.json").display())));

    let run = copy_run("vecadd-none", &tmp);
    edit_last(&run.join("stats.json"), "\"dram_bytes\": 786432", "\"dram_bytes\": \"lots\"");
    assert!(matches!(load_run(&run), Err(RunError::Malformed { .. })));
    std::fs::write(run.join("stats.json"), "{\"total\": ").unwrap();
    assert!(matches!(load_run(&run), Err(RunError::Malformed { .. })));

    let run = copy_run("bfs-none", &tmp);
    edit_last(&run.join("stats.json"), "\"hit_rate\": null,", "");
    assert!(matches!(load_run(&run), Err(RunError::Missing { .. })));
    let run = copy_run("orphan", &tmp);
    std::fs::write(run.join("sim.log"), "GPGPU-Sim: crashed before the first kernel ended\n").unwrap();
    assert!(matches!(load_run(&run), Err(RunError::Missing { .. })));

    let first = copy_run("vecadd-none", &tmp.join("a"));
    let second = copy_run("vecadd-none", &tmp.join("b"));
    let err = load_rows(&[first, second]).unwrap_err();
    assert!(matches!(err, RunError::Inconsistent { .. }), "{err:?}");
}

/// A GPUWattch report (v3.2.1's format, components shortened) of kernels
/// at the given (total, DRAMP, IBP) watts.
fn gpuwattch_report(kernels: &[(f64, f64, f64)]) -> String {
    kernels
        .iter()
        .enumerate()
        .map(|(i, (total, dram, ibp))| {
            format!(
                "kernel_name = k{i} \nkernel_launch_uid = {} \n\nKernel Average Power Data:\ngpu_avg_power = {total}\n\
                 gpu_avg_IBP, = {ibp}\ngpu_avg_DRAMP, = {dram}\ngpu_avg_CONST_DYNAMICP = 0\ngpu_avg_TOT_INST, = 99\n\n\
                 Kernel Maximum Power Data:\ngpu_max_power = 1\n\n",
                i + 1
            )
        })
        .collect()
}

#[test]
fn whole_gpu_energy_from_the_power_report() {
    let tmp = common::temp_dir("table-power");
    let none = copy_run("vecadd-none", &tmp);
    let bdi = copy_run("vecadd-bdi", &tmp);
    // Two kernels each (sim.log: 50000 + 50000 cycles under none, 40000 + 40000 under bdi), 822 MHz.
    std::fs::write(
        none.join("gpgpusim_power_report__Mon-1.log"),
        gpuwattch_report(&[(50.0, 30.0, 20.0), (40.0, 30.0, 10.0)]),
    )
    .unwrap();
    std::fs::write(
        bdi.join("gpgpusim_power_report__Mon-2.log"),
        gpuwattch_report(&[(45.0, 20.0, 25.0), (45.0, 20.0, 25.0)]),
    )
    .unwrap();
    let rows = load_rows(&[none.clone(), bdi.clone()]).unwrap();
    let us = |cycles: f64| cycles / 822e6 * 1e12; // pJ per watt
    let none_gpu = 50.0 * us(5e4) + 40.0 * us(5e4);
    let bdi_gpu = 90.0 * us(4e4);
    let g = rows[0].run.gpu_power.as_ref().unwrap();
    assert!((g.gpu_pj - none_gpu).abs() < 1e-3 && (g.dram_pj - 30.0 * us(1e5)).abs() < 1e-3, "{g:?}");
    // bdi adds memzip's codec (15000 pJ) and metadata-cache (5000 pJ) energy, not its DRAM energy.
    let bdi_total = rows[1].run.gpu_total_pj().unwrap();
    assert!((bdi_total - (bdi_gpu + 20000.0)).abs() < 1e-3, "{bdi_total}");
    let percent = rows[1].gpu_energy_percent_of_none.unwrap();
    assert!((percent - 100.0 * (bdi_gpu + 20000.0) / none_gpu).abs() < 1e-9, "{percent}");
    let edp = rows[1].gpu_edp_percent_of_none.unwrap();
    assert!((edp - percent * 0.8).abs() < 1e-9, "EDP: energy x 80% of the time, {edp}");

    // The CLI: the text table grows the GPU columns, `memzip power` the JSON.
    let out = memzip(&["table", none.to_str().unwrap(), bdi.to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().next().unwrap().ends_with("GPU uJ  GPU vs none  GPU EDP vs none"), "{text}");
    let out = memzip(&["power", bdi.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json[0]["model"], "GPUWattch");
    assert_eq!(json[0]["kernels"], 2);
    assert_eq!(json[0]["components_pj"]["DRAMP"].as_f64().unwrap().round(), (40.0 * us(4e4)).round());

    // `memzip report` of the two: a whole-GPU section with the same percentages.
    let report = tmp.join("report");
    let out = memzip(&["report", tmp.to_str().unwrap(), "-o", report.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = std::fs::read_to_string(report.join("summary.md")).unwrap();
    let (gpu_uj, dram_uj, total_uj) = (bdi_gpu / 1e6, 40.0 * us(4e4) / 1e6, (bdi_gpu + 20000.0) / 1e6);
    let line =
        format!("| vecadd | bdi | GPUWattch | {gpu_uj:.3} | {dram_uj:.3} | {total_uj:.3} | {percent:.1} | {edp:.1} |");
    assert!(summary.contains("## Whole-GPU energy") && summary.contains(&line), "{summary}");

    // Kernels the report and the log disagree on: one error line naming the report.
    std::fs::write(bdi.join("gpgpusim_power_report__Mon-2.log"), gpuwattch_report(&[(45.0, 20.0, 25.0)])).unwrap();
    let err = error_of(&[&bdi]);
    assert!(err.contains("gpgpusim_power_report__Mon-2.log: 1 kernels, but sim.log has 2"), "{err}");
    // `memzip power` on a run without the power model says how to get it.
    let out = memzip(&["power", none.to_str().unwrap()]);
    std::fs::remove_file(none.join("gpgpusim_power_report__Mon-1.log")).unwrap();
    assert!(out.status.success());
    let out = memzip(&["power", none.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("no power report (run with memzip run --power"));
}

#[test]
fn a_committed_run_without_its_log_takes_the_cycles_from_run_json() {
    // A study commits run.json and stats.json, not the large sim.log.
    let dir = common::temp_dir("table-no-log");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture("vecadd-bdi"));
    std::fs::copy(source.join("stats.json"), dir.join("stats.json")).unwrap();
    let run = r#"{"codec": "bdi", "program": "vecadd", "cycles": 80000, "output_ok": true}"#;
    std::fs::write(dir.join("run.json"), run).unwrap();
    let without_log = load_run(&dir).unwrap();
    assert_eq!(without_log.cycles, 80000);
    assert_eq!(without_log.effective_cr, load_run(&source).unwrap().effective_cr);
    std::fs::write(dir.join("run.json"), r#"{"codec": "bdi"}"#).unwrap();
    let err = load_run(&dir).unwrap_err().to_string();
    assert!(err.contains("no sim.log") && err.contains("\"cycles\""), "{err}");

    // With the power model: each kernel's cycles come from run.json too.
    std::fs::write(
        dir.join("gpgpusim_power_report__Mon-1.log"),
        gpuwattch_report(&[(45.0, 20.0, 25.0), (45.0, 20.0, 25.0)]),
    )
    .unwrap();
    let run = r#"{"codec": "bdi", "program": "vecadd", "cycles": 80000, "kernel_cycles": [40000, 40000]}"#;
    std::fs::write(dir.join("run.json"), run).unwrap();
    let gpu = load_run(&dir).unwrap().gpu_power.expect("the power report is read");
    assert!((gpu.gpu_pj - 45.0 * 8e4 / 822e6 * 1e12).abs() < 1e-3, "two kernels of 40000 cycles at 45 W: {gpu:?}");
    std::fs::write(dir.join("run.json"), r#"{"codec": "bdi", "cycles": 80000}"#).unwrap();
    let err = load_run(&dir).unwrap_err();
    assert!(matches!(err, RunError::Missing { .. }), "{err:?}");
    assert!(err.to_string().contains("\"kernel_cycles\""), "{err}");
}
