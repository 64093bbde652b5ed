//! `memzip report` on the fixture run directories: tables with geometric
//! means computed from the runs, and readable SVG figures.

mod common;

use std::fs;
use std::path::Path;

use memzip_study::report::{geomean, run_dirs, write_report, BarChart, ReportOptions};
use memzip_study::run::TIMING_MODEL;

fn fixtures() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/runs"))
}

/// The default options with the memory-bound threshold at `util`.
fn at_util(util: f64) -> ReportOptions {
    ReportOptions { memory_bound_utilization: util, ..ReportOptions::default() }
}

#[test]
fn geomean_of_ratios() {
    assert!((geomean([2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
    assert_eq!(geomean([]), None);
    assert_eq!(geomean([0.0, -1.0]), None, "non-positive values carry no ratio");
}

#[test]
fn summary_has_per_codec_geomeans_and_every_run() {
    let out = common::temp_dir("report-fixtures");
    let written = write_report(fixtures(), &out, &at_util(0.5)).unwrap();
    // 8 figures, 2 of them again for the memory-bound programs (vecadd), summary.md and .csv.
    assert_eq!((written.files.len(), written.damaged.len()), (12, 0));
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    // bfs: 51200 -> 13120 bytes (25.625%), 50000 -> 40000 cycles (1.25x), CR 4;
    // its stats predate the energy model: no energy columns.
    // No program has a run of every codec: each codec's means over its own programs.
    assert!(summary.contains("No program has a run of every codec."), "{summary}");
    assert!(summary.contains("| mag_bdi | 1 | 4.000 | 4.000 | 1.250 | 25.625 | - | - |"), "{summary}");
    assert!(summary.contains("| none | 1.000 | 1.000 | 1.000 | 100.000 | 100.000 | 100.000 |"), "{summary}");
    // vecadd bdi: 0.8 of none's energy in 0.8 of its cycles.
    assert!(summary.contains("| 77.702 | 80.000 | 64.000 |"), "{summary}");
    assert!(summary.contains("| vecadd | bdi | 0.780 | 0.015 | 0.005 | 0.800 | 80.0 | 64.0 |"), "{summary}");
    assert!(summary.contains("![Energy-delay product relative to no compression](edp.svg)"));
    let none_row = summary.find("| none |").unwrap();
    assert!(summary[none_row..].contains("| mag_bdi |"), "the baseline comes first");
    assert!(summary.contains("![Speedup over no compression](speedup.svg)"));
    let csv = fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(csv.lines().count(), 7, "header and six runs:\n{csv}");
}

#[test]
fn figures_have_title_axis_label_legend_and_bars() {
    let out = common::temp_dir("report-figures");
    write_report(fixtures(), &out, &at_util(0.5)).unwrap();
    let svg = fs::read_to_string(out.join("effective_cr.svg")).unwrap();
    for needle in [
        "Effective compression ratio (at MAG)",
        "effective CR (x)",
        ">mag_bdi<",
        ">geomean (each codec's programs)<",
        "stroke-dasharray",
    ] {
        assert!(svg.contains(needle), "missing {needle}");
    }
    assert_eq!(svg.matches("<title>").count(), 11, "one bar per program and codec with data, plus geomeans");
    let sizes = fs::read_to_string(out.join("size_distribution.svg")).unwrap();
    assert!(sizes.contains("blocks (%)") && sizes.contains(">none<"));
    // The fixtures' hit rates: vecadd bdi 90%, fpc 50%, bfs mag_bdi 99%.
    let mdc = fs::read_to_string(out.join("mdc_hit_rate.svg")).unwrap();
    assert!(mdc.contains("Metadata-cache hit rate") && mdc.contains("hits (% of lookups)"));
    for hit in ["90.0", "50.0", "99.0"] {
        assert!(mdc.contains(&format!(": {hit}")), "no bar of {hit}%:\n{mdc}");
    }
}

#[test]
fn bars_scale_to_a_round_axis() {
    let chart = BarChart {
        title: "t",
        y_label: "y",
        groups: vec!["a".into(), "b".into()],
        series: vec![("s".into(), vec![Some(2.0), Some(4.0)])],
        reference: None,
    };
    let svg = chart.to_svg();
    // Axis 0..4 in steps of 1 over 320 px from y=50: 4.0 -> y=50, 2.0 -> y=210.
    assert!(svg.contains(r#"y="50" width="20" height="320""#), "{svg}");
    assert!(svg.contains(r#"y="210" width="20" height="160""#), "{svg}");
    assert!(svg.contains(r#"text-anchor="end">4</text>"#) && !svg.contains(r#"text-anchor="end">5</text>"#));
}

#[test]
fn a_program_run_only_under_none_is_in_the_tables_not_the_figures() {
    // Without its mag_bdi run bfs has only its none run: nothing to compare.
    let root = fixture_copy("report-none-only");
    fs::remove_dir_all(root.join("bfs-mag_bdi")).unwrap();
    let out = common::temp_dir("report-none-only-out");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    for file in ["speedup.svg", "effective_cr.svg", "speedup-memory-bound.svg"] {
        let svg = fs::read_to_string(out.join(file)).unwrap();
        assert!(svg.contains(">vecadd<") && !svg.contains(">bfs<"), "{file}: {svg}");
    }
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    let runs = &summary[summary.find("## Runs").unwrap()..];
    assert!(runs.lines().any(|l| l.starts_with("bfs ") && l.contains("none")), "{runs}");
}

#[test]
fn an_empty_results_dir_is_an_error() {
    let out = common::temp_dir("report-empty");
    assert!(run_dirs(&out).unwrap_err().contains("no run directories"));
}

#[test]
fn memory_bound_programs_get_their_own_geomeans() {
    // vecadd's none run: DRAM utilisation 0.5125; bfs's stats carry none.
    let out = common::temp_dir("report-bound");
    write_report(fixtures(), &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("Memory-bound: vecadd (0.51). Not memory-bound: none. Not classed: bfs, (unnamed)."),
        "{summary}"
    );
    let section = &summary[summary.find("### Memory-bound").expect("a memory-bound table")..];
    assert!(section.contains("| bdi | "), "{section}");
    assert!(!section[..section.find("\n## ").unwrap_or(section.len())].contains("| mag_bdi |"), "bfs is not in it");
    assert!(!summary.contains("### Not memory-bound"), "no program below the threshold");
    // The memory-bound programs' own effective-CR and speedup figures: vecadd only.
    for file in ["effective_cr-memory-bound.svg", "speedup-memory-bound.svg"] {
        let svg = fs::read_to_string(out.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(svg.contains("(memory-bound programs)") && svg.contains(">vecadd<"), "{file}: {svg}");
        assert!(!svg.contains(">bfs<"), "{file} has bfs, which is not memory-bound");
        assert!(summary.contains(&format!("]({file})")), "summary links {file}");
    }

    let out = common::temp_dir("report-bound-high");
    write_report(fixtures(), &out, &at_util(0.6)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Memory-bound: none. Not memory-bound: vecadd (0.51)."), "{summary}");
    assert!(summary.contains("### Not memory-bound") && !summary.contains("### Memory-bound"));
    assert!(!out.join("speedup-memory-bound.svg").exists(), "no memory-bound program, no figure");
}

#[test]
fn each_speedup_is_shown_with_its_dram_estimate() {
    // vecadd bdi: 1.25x against a bus estimate of 1.299 (activation bound 2.0),
    // 84% of the gain it allows; fpc launched 3 kernels against none's 2.
    let out = common::temp_dir("report-bounds");
    write_report(fixtures(), &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    let section = estimate_section(&summary);
    assert!(section.contains("| vecadd | 0.51 / 0.12 | - | - | 1.250 (1.299b, 84%) | 0.800! |"), "{section}");
    assert!(
        section.contains("Other kernel counts than the `none` run: vecadd fpc:variant=paper004 (3 kernels, none 2).")
    );
    assert!(section.contains("| bfs | - | 1.250 |"), "bfs's stats carry no DRAM counters: {section}");
    assert!(
        section.contains("Above the bus estimate (`^`): 0 of 1 codec runs with one; above the activation bound: 0.\n"),
        "{section}"
    );
}

fn estimate_section(summary: &str) -> &str {
    let section = &summary[summary.find("## Speedups against what the DRAM allows").expect("the section")..];
    &section[..section.find("\n## ").unwrap()]
}

/// The checkout this test runs in (its benchmark manifests and committed runs).
fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The manifests' memory-bound set is what its rule gives on the study's
/// committed `none` runs (DRAM bus busy in at least 0.40 of DRAM cycles on
/// dev at `study`), no codec run involved.
#[test]
fn the_memory_bound_set_is_the_study_none_runs_at_0_40() {
    let dirs = run_dirs(&repo().join("benchmarks/results/study")).unwrap();
    let (rows, damaged) = memzip_study::table::load_sound_rows(&dirs).unwrap();
    assert!(damaged.is_empty());
    let mut by_rule: Vec<String> = rows
        .iter()
        .filter(|r| r.run.is_baseline() && r.run.dram_utilization.unwrap() >= 0.40)
        .map(|r| r.run.program.as_deref().unwrap().split_whitespace().next().unwrap().to_string())
        .collect();
    by_rule.sort();
    assert_eq!(memzip_study::manifest::memory_bound_benchmarks(&repo(), memzip_study::gpu::Gpu::Gtx580), by_rule);
    assert_eq!(by_rule.len(), 10, "{by_rule:?}");
}

/// A program of a benchmark whose manifest says how it is bound is classed
/// by the manifest, not by this report's runs.
#[test]
fn a_manifest_classes_its_benchmark_whatever_the_runs_measure() {
    // vecadd's runs renamed to Rodinia nw's (a latency-bound manifest):
    // their 0.51 utilisation would class them memory-bound at 0.5.
    let root = fixture_copy("report-manifest");
    for run in ["vecadd-none", "vecadd-bdi", "vecadd-fpc"] {
        let path = root.join(run).join("run.json");
        let text = fs::read_to_string(&path).unwrap().replace("\"vecadd\"", "\"rodinia/nw study\"");
        fs::write(&path, text).unwrap();
    }
    let out = common::temp_dir("report-manifest-out");
    let options = ReportOptions { repo: Some(repo()), ..at_util(0.5) };
    write_report(&root, &out, &options).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Memory-bound: none. Not memory-bound: rodinia/nw study (0.51)."), "{summary}");
    // Without the manifests, its own none run classes it.
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Memory-bound: rodinia/nw study (0.51). Not memory-bound: none."), "{summary}");
}

#[test]
fn a_speedup_above_its_bus_estimate_is_marked_and_listed() {
    // vecadd bdi made to end at 70,000 cycles: 1.4286x, above its bus
    // estimate of 1.2994 (its bus cycles 45% fewer than none's), below its
    // activation bound of 2.0.
    let root = fixture_copy("report-above");
    let log = root.join("vecadd-bdi/sim.log");
    fs::write(
        &log,
        fs::read_to_string(&log).unwrap().replace("gpu_tot_sim_cycle = 80000", "gpu_tot_sim_cycle = 70000"),
    )
    .unwrap();
    let out = common::temp_dir("report-above-out");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    let section = estimate_section(&summary);
    assert!(section.contains("| vecadd | 0.51 / 0.12 | - | - | 1.429^ (1.299b, 143%) | 0.800! |"), "{section}");
    assert!(
        section.contains("Above the bus estimate (`^`): 1 of 1 codec runs with one; above the activation bound: 0.")
    );
    assert!(
        section.contains("\n- vecadd bdi: 1.4286x against 1.2994; bus busy -45.0%, DRAM idle -26.0%\n"),
        "{section}"
    );
}

#[test]
fn speedups_are_split_between_the_saturated_kernels_and_the_others() {
    // vecadd under none: kernel 1 keeps the bus busy 0.80 of its cycles (2
    // bus cycles a burst), above dev's 0.8 x 0.89; kernel 2 0.03. BDI halves
    // kernel 1 (2.000x) and takes kernel 2 from 40,000 to 32,000 cycles (1.25x).
    // The fpc run's record has 3 kernels: no split.
    let root = fixture_copy("report-kernels");
    let record = |run: &str, codec: &str, kernel_dram: &str| {
        let log = root.join(run).join("sim.log");
        let cycles = fs::read_to_string(&log)
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("gpu_tot_sim_cycle = "))
            .next_back()
            .unwrap()
            .to_string();
        fs::remove_file(log).unwrap();
        let json = format!(
            r#"{{"codec": "{codec}", "program": "vecadd", "simulator": "dev-6b244a5", "cycles": {cycles}, "output_ok": true, "kernel_dram": {kernel_dram}}}"#
        );
        fs::write(root.join(run).join("run.json"), json).unwrap();
    };
    record("vecadd-none", "none", "[[60000, 24000], [40000, 600]]");
    record("vecadd-bdi", "bdi", "[[30000, 12000], [32000, 500]]");
    record("vecadd-fpc", "fpc:variant=paper004", "[[30000, 12000], [16000, 250], [16000, 250]]");
    let out = common::temp_dir("report-kernels-out");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    let heading = "## Speedups on the saturated kernels and on the others";
    let section = &summary[summary.find(heading).unwrap_or_else(|| panic!("no section: {summary}"))..];
    let section = &section[..section.find("\n## ").unwrap()];
    assert!(section.contains("| vecadd | 1 of 2 (0.60) | - | - | 2.000 / 1.250 | - / - |"), "{section}");
    assert!(!section.contains("| bfs |"), "bfs has no per-kernel record: {section}");
    assert!(summary.contains("Memory-bound: vecadd (0.51, saturated 0.60)"), "{summary}");

    // Without a per-kernel record anywhere, no section.
    write_report(fixtures(), &out, &at_util(0.5)).unwrap();
    assert!(!fs::read_to_string(out.join("summary.md")).unwrap().contains(heading));
}

/// Copies fixture run `from` to `to` in `root`, as a run of `program`.
fn add_run(root: &Path, from: &str, to: &str, program: &str) {
    fs::create_dir_all(root.join(to)).unwrap();
    for file in ["sim.log", "stats.json"] {
        fs::copy(root.join(from).join(file), root.join(to).join(file)).unwrap();
    }
    fs::write(root.join(to).join("run.json"), format!(r#"{{"program": "{program}", "output_ok": true}}"#)).unwrap();
}

/// The summary's table row of `codec` after `heading` (its first table there).
fn row_after<'a>(summary: &'a str, heading: &str, codec: &str) -> &'a str {
    let from = summary.find(heading).unwrap_or_else(|| panic!("no '{heading}' in:\n{summary}"));
    let start = from + summary[from..].find(&format!("\n| {codec} |")).unwrap() + 1;
    &summary[start..start + summary[start..].find('\n').unwrap()]
}

#[test]
fn geomeans_compare_codecs_over_the_programs_all_of_them_ran() {
    // bfs: none, mag_bdi, bdi; vecadd: none, bdi (and fpc, removed here).
    let root = fixture_copy("report-common");
    fs::remove_dir_all(root.join("orphan")).unwrap();
    fs::remove_dir_all(root.join("vecadd-fpc")).unwrap();
    add_run(&root, "vecadd-bdi", "bfs-bdi", "bfs");
    let out = common::temp_dir("report-common-out");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    // Only bfs has all three: bdi's common mean is its bfs run alone, its own
    // mean also counts vecadd's (same stats, other none run: another speedup).
    assert!(summary.contains("over the 1 program every codec has run (bfs)"), "{summary}");
    let common_bdi = row_after(&summary, "every codec has run (bfs)", "bdi");
    let own_bdi = row_after(&summary, "Each codec over every program it has run", "bdi");
    assert!(common_bdi.starts_with("| bdi | 1.333 | 1.333 |"), "{common_bdi}");
    assert!(own_bdi.starts_with("| bdi | 2 | 1.333 | 1.333 |"), "{own_bdi}");
    assert_ne!(common_bdi.split('|').nth(4), own_bdi.split('|').nth(5), "the speedups differ: {summary}");
    let svg = fs::read_to_string(out.join("speedup.svg")).unwrap();
    assert!(svg.contains(">geomean (the 1 program all ran)<"), "{svg}");

    // With mag_bdi on vecadd too the grid is complete: one table, one label.
    add_run(&root, "bfs-mag_bdi", "vecadd-mag_bdi", "vecadd");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Geometric means over 2 programs, each run by every codec."), "{summary}");
    assert!(!summary.contains("| programs |"), "{summary}");
    let svg = fs::read_to_string(out.join("speedup.svg")).unwrap();
    assert!(svg.contains(">geomean<"), "{svg}");
}

/// Copies the fixture runs into a fresh directory (tests add files to it).
fn fixture_copy(name: &str) -> std::path::PathBuf {
    let root = common::temp_dir(name);
    for run in fs::read_dir(fixtures()).unwrap().flatten() {
        let to = root.join(run.file_name());
        fs::create_dir_all(&to).unwrap();
        for file in fs::read_dir(run.path()).unwrap().flatten() {
            fs::copy(file.path(), to.join(file.file_name())).unwrap();
        }
    }
    root
}

#[test]
fn a_damaged_run_is_listed_and_the_report_shows_every_other_run() {
    let root = fixture_copy("report-damaged");
    let run_json = root.join("bfs-mag_bdi/run.json");
    let text = fs::read(&run_json).unwrap();
    fs::write(&run_json, &text[..text.len() / 2]).unwrap(); // a write cut short
    let out = common::temp_dir("report-damaged-out");
    let written = write_report(&root, &out, &at_util(0.5)).unwrap();
    assert_eq!(written.damaged.len(), 1, "{:?}", written.damaged);
    assert!(written.damaged[0].starts_with(&format!("{}: not valid JSON: ", run_json.display())));
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("5 runs from"), "{summary}");
    assert!(summary.contains("Left out: 1 run directory that did not load"), "{summary}");
    assert!(summary.contains("\n- bfs-mag_bdi/run.json: not valid JSON: "), "{summary}");
    assert!(summary.contains("| vecadd | bdi | 0.780 |"), "the other runs are all there: {summary}");
    // The command writes the report, lists the run and fails.
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_memzip"))
        .args(["report"])
        .arg(&root)
        .arg("--output")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&cli.stderr);
    assert_eq!(cli.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("memzip: left out: ") && stderr.contains("1 run directory left out"), "{stderr}");
    assert!(String::from_utf8_lossy(&cli.stdout).contains("summary.md"));
}

#[test]
fn analyze_json_of_none_runs_becomes_a_table_of_every_codec() {
    use memzip_study::analyze::{analyze, AnalyzeOptions};
    let runs = fixture_copy("report-analyze-runs");
    let trace = runs.join("t.mzt");
    common::write_trace(&trace, 300, 128, false);
    let mut options = AnalyzeOptions::new(vec!["bdi".into(), "e2mc16".into()]);
    options.e2mc_self_profile = true;
    options.shannon_bits = vec![];
    let analysis = analyze(&[&trace], &options).unwrap();
    let json = serde_json::json!({ "traces": analysis });
    fs::write(runs.join("vecadd-none/analyze.json"), json.to_string()).unwrap();

    let out = common::temp_dir("report-analyze");
    write_report(&runs, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    let section = &summary[summary.find("## Every codec on the stored blocks").expect("the analyze section")..];
    assert!(section.contains("| program | bdi | e2mc16 |"), "{section}");
    let cr = |i: usize| format!("{:.3}", analysis[0].codecs[i].effective_compression_ratio.unwrap());
    let row = format!("| vecadd | {} | {} |", cr(0), cr(1));
    assert!(section.contains(&row), "{row} not in:\n{section}");
    // One program: its values are the geometric means.
    assert!(section.contains(&format!("| geomean | {} | {} |", cr(0), cr(1))), "{section}");
    assert!(!section[..section.find("## Energy").unwrap()].contains("| bfs |"), "bfs has no analyze.json");

    // The MAG-aware paper Fig. 12: the share of each codec's blocks at each stored size.
    let sizes = &section[section.find("### Stored sizes at MAG").expect("the size table")..];
    let shares = |i: usize| {
        let histogram = &analysis[0].codecs[i].mag_size_histogram;
        let total: u64 = histogram.values().sum();
        [32, 64, 96, 128].map(|size| format!("{:.1}", 100.0 * histogram[&size] as f64 / total as f64)).join(" / ")
    };
    assert!(
        sizes.starts_with("### Stored sizes at MAG (paper 002 Fig. 12)\n\nBlocks stored at 32 / 64 / 96 / 128 B"),
        "{sizes}"
    );
    assert_ne!(shares(0), "0.0 / 0.0 / 0.0 / 100.0", "the trace compresses under bdi");
    assert!(sizes.contains(&format!("| vecadd | {} | {} |", shares(0), shares(1))), "{sizes}");
    assert!(sizes.contains(&format!("| mean | {} | {} |", shares(0), shares(1))), "{sizes}");
}

#[test]
fn a_program_list_limits_the_report_to_those_programs() {
    let out = common::temp_dir("report-programs");
    let options = ReportOptions { programs: vec!["vecadd".into()], ..at_util(0.5) };
    write_report(fixtures(), &out, &options).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Geometric means over 1 program, each run by every codec."), "{summary}");
    assert!(summary.contains("Memory-bound: vecadd (0.51). Not memory-bound: none. Not classed: none."), "{summary}");
    assert!(!summary.contains("bfs") && !summary.contains("mag_bdi"), "bfs's runs are left out:\n{summary}");

    let options = ReportOptions { programs: vec!["vecadd".into(), "nosuch".into()], ..at_util(0.5) };
    let error = write_report(fixtures(), &common::temp_dir("report-programs-bad"), &options).unwrap_err();
    assert!(error.starts_with("--program 'nosuch': no run of it in "), "{error}");
}

#[test]
fn sensitivity_analyses_of_none_runs_get_a_table_each_with_their_setting() {
    use memzip_study::analyze::{analyze, AnalyzeOptions};
    let runs = fixture_copy("report-sensitivity-runs");
    let trace = runs.join("t.mzt");
    common::write_trace(&trace, 300, 128, false);
    let mut at_mag16 = AnalyzeOptions::new(vec!["bdi".into(), "mag_bdi".into()]);
    at_mag16.mag_bytes = 16;
    at_mag16.shannon_bits = vec![];
    let mag16 = analyze(&[&trace], &at_mag16).unwrap();
    let json = serde_json::json!({ "traces": mag16 });
    fs::write(runs.join("vecadd-none/analyze-mag16.json"), json.to_string()).unwrap();
    let mut online = AnalyzeOptions::new(vec!["e2mc16:mfv=512".into(), "e2mc16".into()]);
    online.sample_blocks = 100;
    online.shannon_bits = vec![];
    let mfv = analyze(&[&trace], &online).unwrap();
    let json = serde_json::json!({ "traces": mfv, "sample_blocks": 100, "e2mc_offline": false });
    fs::write(runs.join("vecadd-none/analyze-e2mc16-mfv.json"), json.to_string()).unwrap();

    let out = common::temp_dir("report-sensitivity");
    write_report(&runs, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    let section = &summary[summary.find("## Sensitivity of the compression ratio").expect("the section")..];
    let section = &section[..section.find("## Energy").unwrap()];
    // One table pair per file, sorted by name, each saying how it analysed the blocks.
    let mfv_at = section.find("### e2mc16-mfv: MAG 32 B; E2MC samples the first 100 blocks online").expect(section);
    let mag_at = section.find("### mag16: MAG 16 B\n").expect(section);
    assert!(mfv_at < mag_at, "{section}");
    let cr = |codecs: &[memzip_study::analyze::CodecResult], i: usize, raw: bool| {
        let c = &codecs[i];
        format!("{:.3}", if raw { c.raw_compression_ratio } else { c.effective_compression_ratio }.unwrap())
    };
    let mag16_part = &section[mag_at..];
    for raw in [false, true] {
        let row = format!("| vecadd | {} | {} |", cr(&mag16[0].codecs, 0, raw), cr(&mag16[0].codecs, 1, raw));
        assert!(mag16_part.contains(&row), "{row} not in:\n{mag16_part}");
    }
    assert!(section[mfv_at..mag_at].contains("| program | e2mc16:mfv=512 | e2mc16 |"), "{section}");
    assert!(!section.contains("| bfs |"), "bfs has no analyze-*.json");
}

/// The activation bound is a bound (a channel opens at most one row per
/// tRRD): no committed codec run is faster than it, unlike the bus estimate.
#[test]
fn no_committed_run_exceeds_its_activation_bound() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/results");
    let mut checked = 0;
    for study in fs::read_dir(&results).unwrap().flatten().filter(|e| e.path().is_dir()) {
        let Ok(dirs) = run_dirs(&study.path()) else { continue };
        // A grid of several none runs of one program (the noise study) is no comparison.
        let Ok((rows, _)) = memzip_study::table::load_sound_rows(&dirs) else { continue };
        for row in rows.iter().filter(|r| !r.run.is_baseline()) {
            if let (Some(speedup), Some(bound)) = (row.speedup, row.activation_bound) {
                assert!(speedup <= bound, "{}: {speedup} above its activation bound {bound}", row.run.dir);
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "only {checked} committed codec runs have an activation bound");
}

/// Every committed study report (`benchmarks/results/<study>/report/`) is what
/// `memzip report benchmarks/results/<study>` writes from the committed runs.
#[test]
fn committed_reports_regenerate_byte_for_byte() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut checked = 0;
    for study in fs::read_dir(repo.join("benchmarks/results")).unwrap().flatten() {
        let committed = study.path().join("report");
        if !committed.join("summary.md").is_file() {
            continue;
        }
        let name = study.file_name().to_string_lossy().into_owned();
        let out = common::temp_dir(&format!("report-regenerate-{name}"));
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_memzip"))
            .current_dir(&repo)
            .args(["report", &format!("benchmarks/results/{name}"), "-o"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
        for file in fs::read_dir(&committed).unwrap().flatten() {
            let fresh = fs::read(out.join(file.file_name())).unwrap_or_default();
            assert!(fresh == fs::read(file.path()).unwrap(), "{} differs from a fresh report", file.path().display());
        }
        checked += 1;
    }
    eprintln!("{checked} committed report(s) regenerated");
}

#[test]
fn runs_of_a_named_variant_are_their_own_series() {
    // Two vecadd bdi runs that differ in a controller option: the sweep's
    // sweep.json names each one's variant, and the report keeps both.
    let root = fixture_copy("report-variants");
    for (dir, variant) in [("vecadd-bdi", "mdc4k"), ("vecadd-bdi-mdc8k", "mdc8k")] {
        if !root.join(dir).is_dir() {
            add_run(&root, "vecadd-bdi", dir, "vecadd");
        }
        let record = format!(
            r#"{{"id": "{dir}", "variant": "{variant}", "benchmark": "vecadd", "preset": "tiny", "codec": "bdi", "options": [], "simulator": "dev", "timing_model": {TIMING_MODEL}}}"#
        );
        fs::write(root.join(dir).join("sweep.json"), record).unwrap();
    }
    let out = common::temp_dir("report-variants-out");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    for label in ["bdi [mdc4k]", "bdi [mdc8k]"] {
        assert!(summary.contains(&format!("| {label} |")), "no row of {label}:\n{summary}");
    }
    let svg = fs::read_to_string(out.join("speedup.svg")).unwrap();
    assert!(svg.contains(">bdi [mdc4k]<") && svg.contains(">bdi [mdc8k]<"), "{svg}");
}

/// Writes the sweep record of the vecadd run `id` of `root` (gpgpu-sim dev,
/// `tiny`) made with `codec` under `timing_model`.
fn write_sweep_record(root: &Path, id: &str, codec: &str, timing_model: u32) {
    let record = format!(
        r#"{{"id": "{id}", "benchmark": "vecadd", "preset": "tiny", "codec": "{codec}", "options": [], "simulator": "dev", "timing_model": {timing_model}}}"#
    );
    fs::write(root.join(id).join("sweep.json"), record).unwrap();
}

#[test]
fn codec_runs_of_an_older_timing_model_are_left_out_and_listed() {
    let root = fixture_copy("report-superseded");
    add_run(&root, "vecadd-bdi", "vecadd-bdi-old", "vecadd");
    write_sweep_record(&root, "vecadd-bdi-old", "bdi", 1);
    write_sweep_record(&root, "vecadd-none", "none", 1);
    let out = common::temp_dir("report-superseded-out");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Left out: 1 codec run(s) made with an older timing model"), "{summary}");
    assert!(summary.contains("- `vecadd-bdi-old`"), "{summary}");
    let runs = summary.split("## Runs").nth(1).unwrap();
    let rows_of = |codec: &str| runs.lines().filter(|l| l.split_whitespace().take(2).eq(["vecadd", codec])).count();
    assert_eq!(rows_of("bdi"), 1, "the superseded bdi run is not in the tables:\n{runs}");
    assert_eq!(rows_of("none"), 1, "a none run of any model stays:\n{runs}");
}

#[test]
fn a_run_made_before_a_model_change_is_kept_counted_and_marked() {
    let root = fixture_copy("report-model-change");
    // The fixture's stats have no partial.filled_sectors: a dev codec run made
    // before the channel-key fix; its none run read no metadata and stands.
    write_sweep_record(&root, "vecadd-bdi", "bdi", 2);
    write_sweep_record(&root, "vecadd-none", "none", 2);
    let out = common::temp_dir("report-model-change-out");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("**Made before a model change**: 1 run(s)"), "{summary}");
    assert!(
        summary.contains("(the channel-key fix; stats.json has no partial.filled_sectors): 1 run(s) (bdi 1)"),
        "{summary}"
    );
    let speedups = summary.split("## Speedups against what the DRAM allows").nth(1).unwrap();
    let vecadd = speedups.lines().find(|l| l.starts_with("| vecadd")).unwrap();
    assert_eq!(vecadd.matches('†').count(), 1, "only the bdi run is marked: {vecadd}");
    let runs = summary.split("## Runs").nth(1).unwrap();
    assert!(
        runs.lines().any(|l| l.split_whitespace().take(2).eq(["vecadd", "bdi"])),
        "it stays in the tables:\n{runs}"
    );
}

/// Sets `simulator_sources` in a fixture copy's run.json.
fn record_sources(run: &Path, sources: &str) {
    let path = run.join("run.json");
    let mut record: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    record["simulator_sources"] = sources.into();
    fs::write(&path, record.to_string()).unwrap();
}

#[test]
fn runs_of_two_simulator_builds_are_flagged() {
    let root = fixture_copy("report-builds");
    let out = root.join("report");
    for run in ["vecadd-none", "vecadd-bdi"] {
        record_sources(&root.join(run), "57b825381b737880");
    }
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!summary.contains("simulator builds"), "one recorded build is no warning:\n{summary}");

    record_sources(&root.join("vecadd-fpc"), "d3c0deab45553cfc");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains(
            "**Runs from 2 simulator builds** (run.json's `simulator_sources`: the patches, cpp_shim/ and codec \
             sources each simulator was built from): `57b825381b737880` 2 run(s), `d3c0deab45553cfc` 1 run(s), \
             and 3 run(s) that predate the record. Compare runs of one build."
        ),
        "{summary}"
    );
}

#[test]
fn lossy_runs_get_an_output_error_section() {
    let root = fixture_copy("report-output-error");
    let out = common::temp_dir("report-output-error-out");
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!summary.contains("## Output error"), "no run records one");
    // vecadd's none run is the exact output, its bdi run pretends to be lossy.
    let error = |mean: f64| {
        format!(r#"{{"values": 4, "differing": 1, "mean_relative_error": {mean}, "max_relative_error": 0.5}}"#)
    };
    fs::write(
        root.join("vecadd-none/run.json"),
        format!(r#"{{"codec": "none", "program": "vecadd", "output_ok": true, "output_error": {}}}"#, error(0.0)),
    )
    .unwrap();
    fs::write(
        root.join("vecadd-bdi/run.json"),
        format!(r#"{{"codec": "bdi", "program": "vecadd", "output_ok": false, "output_error": {}}}"#, error(0.0125)),
    )
    .unwrap();
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("| program | none | bdi |\n"), "{summary}");
    assert!(summary.contains("| vecadd | 0.000% | 1.250% FAIL |\n"), "{summary}");
    assert!(summary.contains("| geomean of errors > 0 | - (1 exact) | 1.250% |\n"), "{summary}");
    // The geomean leaves the exact run out; the arithmetic mean counts it.
    assert!(summary.contains("| arithmetic mean of errors | 0.000% | 1.250% |\n"), "{summary}");
    assert!(summary.contains("| worst program | 0.000% (every run) | 1.250% (vecadd) |\n"), "{summary}");
    assert!(summary.contains("| largest error of one value | 50.000% (vecadd) | 50.000% (vecadd) |\n"), "{summary}");
    let csv = fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(csv.lines().next().unwrap().ends_with("output_mean_relative_error,output_max_relative_error"), "{csv}");
}

/// Sets a fixture copy's run.json field `key` to the JSON `value`.
fn record_field(run: &Path, key: &str, value: serde_json::Value) {
    let path = run.join("run.json");
    let mut record: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    record[key] = value;
    fs::write(&path, record.to_string()).unwrap();
}

#[test]
fn a_program_on_another_gpu_is_reported_apart_and_named_with_it() {
    let root = fixture_copy("report-gpus");
    let out = root.join("report");
    // vecadd on the QV100: its bdi run the fixture's, its none run twice as long.
    add_run(&root, "vecadd-none", "vecadd-qv100-none", "vecadd");
    add_run(&root, "vecadd-bdi", "vecadd-qv100-bdi", "vecadd");
    for run in ["vecadd-qv100-none", "vecadd-qv100-bdi"] {
        record_field(&root.join(run), "gpu", "qv100".into());
    }
    let log = fs::read_to_string(root.join("vecadd-bdi/sim.log")).unwrap();
    let bdi_cycles: u64 =
        log.lines().filter_map(|l| l.strip_prefix("gpu_tot_sim_cycle = ")).next_back().unwrap().trim().parse().unwrap();
    fs::remove_file(root.join("vecadd-qv100-none/sim.log")).unwrap();
    record_field(&root.join("vecadd-qv100-none"), "cycles", (2 * bdi_cycles).into());
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains("GPUs: gtx580 6 run(s), qv100 2 run(s). A program on another GPU than the GTX580 is named"),
        "{summary}"
    );
    // Its own none run is its baseline (2x), not the GTX580's (1.25x).
    let runs = summary.split("## Runs").nth(1).unwrap();
    let row = runs.lines().find(|l| l.starts_with("vecadd @qv100  qv100   bdi")).unwrap_or_else(|| panic!("{runs}"));
    assert_eq!(row.split_whitespace().nth(5), Some("2.000"), "{row}");
    let row = runs.lines().find(|l| l.starts_with("vecadd         gtx580  bdi")).unwrap_or_else(|| panic!("{runs}"));
    assert_eq!(row.split_whitespace().nth(4), Some("1.250"), "{row}");
    let csv = fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",gpu"), "{csv}");
    let svg = fs::read_to_string(out.join("speedup.svg")).unwrap();
    assert!(svg.contains(">vecadd @qv100<"), "{svg}");
    // --program names the benchmark on every GPU, or on one.
    let options = ReportOptions { programs: vec!["vecadd @qv100".into()], ..at_util(0.5) };
    write_report(&root, &out, &options).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.starts_with("# memzip report\n\n2 runs from"), "{summary}");
}

#[test]
fn several_results_directories_make_one_report() {
    // The fixture runs in one directory, a QV100 copy of vecadd's in another
    // (its none run twice as long): one report, each GPU against its own none.
    let gtx580 = fixture_copy("report-two-dirs-gtx580");
    let qv100 = common::temp_dir("report-two-dirs-qv100");
    for (from, to) in [("vecadd-none", "vecadd-qv100-none"), ("vecadd-bdi", "vecadd-qv100-bdi")] {
        fs::create_dir_all(qv100.join(to)).unwrap();
        for file in ["sim.log", "stats.json"] {
            fs::copy(gtx580.join(from).join(file), qv100.join(to).join(file)).unwrap();
        }
        fs::write(qv100.join(to).join("run.json"), r#"{"program": "vecadd", "output_ok": true, "gpu": "qv100"}"#)
            .unwrap();
    }
    let log = fs::read_to_string(qv100.join("vecadd-qv100-bdi/sim.log")).unwrap();
    let bdi_cycles: u64 =
        log.lines().filter_map(|l| l.strip_prefix("gpu_tot_sim_cycle = ")).next_back().unwrap().trim().parse().unwrap();
    fs::remove_file(qv100.join("vecadd-qv100-none/sim.log")).unwrap();
    record_field(&qv100.join("vecadd-qv100-none"), "cycles", (2 * bdi_cycles).into());
    let out = common::temp_dir("report-two-dirs-out");
    let written = memzip_study::report::write_report_of(&[gtx580.clone(), qv100.clone()], &out, &at_util(0.5)).unwrap();
    assert!(written.damaged.is_empty());
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    let head = format!("8 runs from `{}`, `{}`.", gtx580.display(), qv100.display());
    assert!(summary.contains(&head), "{summary}");
    let runs = summary.split("## Runs").nth(1).unwrap();
    let row = runs.lines().find(|l| l.starts_with("vecadd @qv100  qv100   bdi")).unwrap_or_else(|| panic!("{runs}"));
    assert_eq!(row.split_whitespace().nth(5), Some("2.000"), "{row}");
    // A directory without runs is an error naming it.
    let empty = common::temp_dir("report-two-dirs-empty");
    let error =
        memzip_study::report::write_report_of(&[gtx580.clone(), empty.clone()], &out, &at_util(0.5)).unwrap_err();
    assert!(error.contains(&empty.display().to_string()), "{error}");
}

/// Adds `total.partial` to a fixture copy's stats.json.
fn record_partial(run: &Path, overfetch: u64, rmw_bursts: u64, fallbacks: u64) {
    let path = run.join("stats.json");
    let mut stats: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    stats["total"]["partial"] = serde_json::json!({
        "reads": 100, "compressed_reads": 60, "overfetch_bursts": overfetch, "writes": 40,
        "rmw_reads": rmw_bursts / 3, "rmw_read_bursts": rmw_bursts, "rmw_read_bytes": 32 * rmw_bursts,
        "raw_fallbacks": fallbacks
    });
    fs::write(&path, stats.to_string()).unwrap();
}

#[test]
fn partial_request_costs_are_shown_and_a_codec_slower_than_none_is_named() {
    let root = fixture_copy("report-partial");
    let out = root.join("report");
    // Counters of zero cost change nothing.
    record_partial(&root.join("vecadd-none"), 0, 0, 0);
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(!summary.contains("Partial requests") && !summary.contains("overfetch"), "{summary}");
    // fpc paid for partial requests and runs longer than none (its cycles put
    // in run.json in place of its log).
    record_partial(&root.join("vecadd-fpc"), 1200, 900, 7);
    record_partial(&root.join("vecadd-bdi"), 300, 0, 0);
    let none_log = fs::read_to_string(root.join("vecadd-none/sim.log")).unwrap();
    let none_cycles: u64 = none_log
        .lines()
        .filter_map(|l| l.strip_prefix("gpu_tot_sim_cycle = "))
        .next_back()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    fs::remove_file(root.join("vecadd-fpc/sim.log")).unwrap();
    record_field(&root.join("vecadd-fpc"), "cycles", (none_cycles * 5 / 4).into());
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    let section = summary.split("## Partial requests (sectored L2)").nth(1).unwrap_or_else(|| panic!("{summary}"));
    let vecadd = section.lines().find(|l| l.starts_with("| vecadd |")).unwrap();
    assert_eq!(vecadd, "| vecadd | 0 / 0 / 0 | - | - | 300 / 0 / 0 | 1200 / 900 / 7 |", "{section}");
    assert!(
        section.contains(
            "Slower than `none` (speedup < 1):\n\n- `vecadd-fpc` (vecadd fpc:variant=paper004): 0.800x; 1200 over-fetched bursts, \
             900 read-modify-write read bursts (300 reads), 7 raw fallbacks\n"
        ),
        "{section}"
    );
    let runs = summary.split("## Runs").nth(1).unwrap();
    let header = runs.lines().find(|l| l.starts_with("program ")).unwrap();
    assert!(header.ends_with("overfetch bursts  RMW read bursts  raw fallbacks"), "{runs}");
    let csv = fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(csv.lines().any(|l| l.ends_with(",100,60,1200,40,300,900,28800,7,0,0,0,0")), "{csv}");
    // Refetches and the fill policy's counters are named where counted.
    let path = root.join("vecadd-fpc/stats.json");
    let mut stats: serde_json::Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    for (key, count) in [("refetches", 50), ("refetch_bursts", 100), ("merged_reads", 30), ("filled_sectors", 12)] {
        stats["total"]["partial"][key] = count.into();
    }
    fs::write(&path, stats.to_string()).unwrap();
    write_report(&root, &out, &at_util(0.5)).unwrap();
    let summary = fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        summary.contains(
            "1200 over-fetched bursts (100 bursts fetched again, 50 whole-line refetches), 900 read-modify-write read \
             bursts (300 reads), 7 raw fallbacks; the L2 took whole lines (fill): 30 sector reads matched to a fetch \
             in flight, 12 sectors filled\n"
        ),
        "{summary}"
    );
    let csv = fs::read_to_string(out.join("summary.csv")).unwrap();
    assert!(csv.lines().any(|l| l.ends_with(",100,60,1200,40,300,900,28800,7,50,100,30,12")), "{csv}");
}
