//! `memzip table` on the run directories under tests/fixtures/runs.
//!
//! The fixtures hold the simulator's `-memzip_stats_json` format (every
//! McStats field, two controllers), a gpgpu-sim style log with two kernels
//! (the table takes the last `gpu_tot_sim_cycle`), and the runner's
//! `run.json` (absent for `orphan`, without `codec` for the bfs runs).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use memzip_cli::table::{load_rows, load_run};

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
    let expected = "\
program  run                   cycles  speedup  DRAM bytes  DRAM vs none  DRAM util  raw CR  eff CR  MDC hit  energy uJ  energy vs none  EDP vs none  verify chk/fail  output  wall s
vecadd   none                  100000    1.000      786432        100.0%      0.512   1.000   1.000        -      1.000          100.0%       100.0%                -  ok        12.5
vecadd   bdi                    80000    1.250      611072         77.7%      0.438   1.333   1.333    90.0%      0.800           80.0%        64.0%           6144/0  ok        13.2
vecadd   fpc:variant=paper004  125000    0.800      848896        107.9%          -   1.143   1.143    50.0%      1.100          110.0%       137.5%           6144/2  FAIL      20.0
bfs      none                   50000    1.000       51200        100.0%          -   1.000   1.000        -          -               -            -                -  -            -
bfs      mag_bdi                40000    1.250       13120         25.6%          -   4.000   4.000    99.0%          -               -            -                -  ok           -
-        cpack                   7000        -        1440             -          -   1.333   1.143        -          -               -            -                -  -            -
";
    assert_eq!(stdout_of(&table_args(&[])), expected);
}

#[test]
fn prints_a_markdown_table() {
    let markdown = stdout_of(&table_args(&["--markdown"]));
    let lines: Vec<&str> = markdown.lines().collect();
    assert_eq!(
        lines[0],
        "| program | run | cycles | speedup | DRAM bytes | DRAM vs none | DRAM util | raw CR | eff CR | MDC hit \
         | energy uJ | energy vs none | EDP vs none | verify chk/fail | output | wall s |"
    );
    assert_eq!(lines[1], "|:---|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|---:|");
    assert_eq!(
        lines[3],
        "| vecadd | bdi | 80000 | 1.250 | 611072 | 77.7% | 0.438 | 1.333 | 1.333 | 90.0% | 0.800 | 80.0% | 64.0% | 6144/0 | ok | 13.2 |"
    );
    assert_eq!(lines.len(), 8);
}

#[test]
fn prints_csv_at_full_precision() {
    let csv = stdout_of(&table_args(&["--csv"]));
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "program,run,dir,cycles,speedup,dram_bytes,dram_percent_of_none,dram_utilization,raw_cr,effective_cr,mdc_hit_rate,\
         verify_checked,verify_failures,output_ok,wall_seconds,energy_pj,dram_energy_pj,codec_energy_pj,\
         metadata_energy_pj,energy_percent_of_none,edp_js,edp_percent_of_none"
    );
    let edp = |pj: f64, cycles: f64| pj * 1e-12 * cycles / 822e6;
    assert_eq!(
        lines[1],
        format!("vecadd,none,tests/fixtures/runs/vecadd-none,100000,1,786432,100,0.5125,1,1,,0,0,true,12.5,1000000,1000000,0,0,100,{},100", edp(1e6, 1e5))
    );
    assert_eq!(
        lines[2],
        format!(
            "vecadd,bdi,tests/fixtures/runs/vecadd-bdi,80000,1.25,611072,{},0.4375,{},{},0.9,6144,0,true,13.25,800000,780000,15000,5000,80,{},{}",
            100.0 * 611072.0 / 786432.0,
            2048.0 / 1536.0,
            4.0 / 3.0,
            edp(8e5, 8e4),
            100.0 * edp(8e5, 8e4) / edp(1e6, 1e5)
        )
    );
    assert_eq!(
        lines[6],
        format!(",cpack,tests/fixtures/runs/orphan,7000,,1440,,,{},{},,0,0,,,,,,,,,", 10240.0 / 7680.0, 1280.0 / 1120.0)
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
