//! Multi-GPU run directories (memzip-mgpu, mgpusim-plugin/) load like
//! gpgpu-sim's: the fixtures are a tiny FIR on 4 GPUs under none and bdi,
//! written by memzip-mgpu with -verify.

use std::path::{Path, PathBuf};

use memzip_study::run::Medium;
use memzip_study::table;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mgpu").join(name)
}

#[test]
fn fabric_runs_compare_with_their_none_run() {
    let rows = table::load_rows(&[fixture("fir-bdi"), fixture("fir-none")]).unwrap();
    let (none, bdi) = (&rows[0], &rows[1]);
    assert_eq!(none.run.stats_codec, "none", "the none run leads its program");
    assert_eq!(bdi.run.program.as_deref(), Some("mgpusim/fir length=8192,taps=16"));
    assert!(rows.iter().all(|r| r.run.medium == Medium::Fabric && r.run.output_ok == Some(true)));
    // Speedup and traffic against none, from the runs' own numbers.
    assert_eq!(bdi.speedup, Some(none.run.cycles as f64 / bdi.run.cycles as f64));
    let percent = bdi.dram_percent_of_none.unwrap();
    assert!(percent < 100.0 && percent > 50.0, "bdi moved {percent}% of none's fabric bytes");
    assert!(bdi.run.raw_cr.unwrap() > 1.0 && bdi.run.effective_cr.unwrap() > 1.0);
    assert!(bdi.run.verify_checked > 0 && none.run.verify_checked == 0);
    assert_eq!(none.run.raw_cr, None, "none compresses nothing: no ratio");
    let energy = bdi.energy_percent_of_none.unwrap();
    assert!(energy < 100.0, "bdi's fabric + codec energy is {energy}% of none's");
}

#[test]
fn tables_name_the_fabric() {
    let rows = table::load_rows(&[fixture("fir-none"), fixture("fir-bdi")]).unwrap();
    let text = table::render_text(&rows);
    assert!(text.contains("fabric bytes") && text.contains("fabric vs none"), "{text}");
    assert!(!text.contains("DRAM bytes"), "{text}");
    let csv = table::render_csv(&rows);
    assert!(csv.lines().next().unwrap().ends_with(",medium"), "{csv}");
    assert!(csv.lines().nth(1).unwrap().ends_with(",fabric"), "{csv}");
}

/// A payload trace of memzip-mgpu (`-trace`: SimpleConvolution 126 x 126 on
/// 4 GPUs) analysed as a link: reads (data-ready payloads) included, sizes
/// in whole bytes, the paper's Table III costs and FPC prefix table.
#[test]
fn payload_traces_analyse_at_byte_granules_with_the_papers_costs() {
    use memzip::codec::cost_profile::CostProfile;
    use memzip_study::analyze::{analyze, AnalyzeError, AnalyzeOptions};

    let trace = [fixture("sc-payloads.mztrace")];
    let mut options = AnalyzeOptions::new(vec!["fpc".into(), "bdi".into()]);
    options.mag_bytes = 1;
    options.include_reads = true;
    options.shannon_bits = Vec::new();
    let memzip_costs = analyze(&trace, &options).unwrap();
    options.costs = CostProfile::Paper004;
    let paper = analyze(&trace, &options).unwrap();
    let (fpc, bdi) = (&paper[0].codecs[0], &paper[0].codecs[1]);
    assert_eq!(paper[0].blocks, paper[0].records.read + paper[0].records.write, "every payload analysed");
    // At a 1-byte granule each block rounds up to whole bytes only.
    assert!(bdi.mag_bytes * 8 >= bdi.compressed_bits && bdi.mag_bytes * 8 < bdi.compressed_bits + 8 * bdi.blocks);
    assert!(bdi.mag_bytes < bdi.blocks * 64 / 4, "a constant image compresses more than 4x with BDI");
    // The paper's FPC (Table II) is not memzip's default FPC.
    assert_ne!(fpc.compressed_bits, memzip_costs[0].codecs[0].compressed_bits);
    // Table VI: every payload word under one Table II pattern, with the
    // paper's costs only; BDI's patterns are its blocks' encodings.
    for codec in [fpc, bdi] {
        let words: u64 = codec.table2_patterns.as_ref().expect("Table II patterns").values().sum();
        assert_eq!(words, codec.blocks * 16, "{}", codec.codec);
    }
    let bdi_blocks: u64 =
        bdi.encodings.iter().filter(|(name, _)| name.as_str() != "uncompressed").map(|(_, n)| n).sum();
    let bdi_patterns = bdi.table2_patterns.as_ref().unwrap();
    assert_eq!(bdi_patterns.iter().filter(|&(&p, _)| p != 9).map(|(_, n)| n).sum::<u64>(), bdi_blocks * 16);
    assert!(memzip_costs[0].codecs.iter().all(|c| c.table2_patterns.is_none()));
    options.mag_bytes = 3;
    let err = analyze(&trace, &options).unwrap_err();
    assert!(matches!(err, AnalyzeError::Config { .. }), "{err:?}");
    assert!(err.to_string().contains("granule_bytes '3'"), "{err}");
}

/// A copy of the fixture runs in a fresh folder (removed when dropped), the
/// none run with the payload analysis `mgpu-run.sh` writes for a traced run.
struct FabricResults(PathBuf);

impl FabricResults {
    fn new(name: &str) -> Self {
        use memzip::codec::cost_profile::CostProfile;
        use memzip_study::analyze::{analyze, AnalyzeOptions, AnalyzeReport};

        let root = std::env::temp_dir().join(format!("memzip-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for run in ["fir-none", "fir-bdi", "fir-adaptive6"] {
            std::fs::create_dir_all(root.join(run)).unwrap();
            for file in ["run.json", "stats.json"] {
                std::fs::copy(fixture(run).join(file), root.join(run).join(file)).unwrap();
            }
        }
        let mut options = AnalyzeOptions::new(vec!["bdi".into(), "fpc".into(), "cpack_z".into()]);
        (options.mag_bytes, options.include_reads, options.costs) = (1, true, CostProfile::Paper004);
        options.shannon_bits = vec![8];
        let analyses = analyze(&[fixture("sc-payloads.mztrace")], &options).unwrap();
        let json = AnalyzeReport::new(&options, None, &analyses).to_json().unwrap();
        std::fs::write(root.join("fir-none/analyze.json"), json).unwrap();
        FabricResults(root)
    }
}

impl Drop for FabricResults {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// The report of fabric runs speaks of the fabric and shows the paper's
// Table V, Table VI, the adaptive selector's choices and the fabric energy,
// with none of DRAM's bounds, metadata cache or MAG sizes.
#[test]
fn a_report_of_fabric_runs_shows_the_papers_tables() {
    use memzip_study::report::{write_report, ReportOptions};

    let results = FabricResults::new("fabric-report");
    let out = results.0.join("report");
    write_report(&results.0, &out, &ReportOptions::default()).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    let fir = "mgpusim/fir length=8192,taps=16";
    assert!(summary.contains("geomean fabric % of none") && !summary.contains("DRAM % of none"), "{summary}");
    assert!(!summary.contains("Memory-bound") && !summary.contains("metadata"), "{summary}");
    // Table V: the trace's 2926 reads and 737 writes, byte entropy 1.02 bits of 8.
    assert!(summary.contains(&format!("| {fir} | 2926 | 737 | 0.13 |")), "{summary}");
    // Table VI: BDI stores 57,824 of the 58,608 words as repeated words (pattern 2).
    assert!(summary.contains(&format!("| {fir} | BDI | (2) 99% |")), "{summary}");
    // Fig. 6: of 864 payloads, C-Pack+Z carried 144, FPC 25, and 695 went raw.
    assert!(summary.contains(&format!("| {fir} | adaptive:lambda=6 | 0% | 3% | 17% | 80% |")), "{summary}");
    assert!(summary.contains("| fabric uJ | codec uJ |"), "{summary}");
    // Inter-GPU traffic: the GPU-to-GPU pairs of the fabric, bdi's share of none's.
    let gpu_to_gpu = |run: &str| -> u64 {
        let stats: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(fixture(run).join("stats.json")).unwrap()).unwrap();
        let pairs = stats["fabric"]["pairs"].as_array().unwrap();
        let gpu = |end: &serde_json::Value| end.as_str().unwrap().starts_with("GPU");
        pairs.iter().filter(|p| gpu(&p["src"]) && gpu(&p["dst"])).map(|p| p["bytes"].as_u64().unwrap()).sum()
    };
    let bdi_percent = 100.0 * gpu_to_gpu("fir-bdi") as f64 / gpu_to_gpu("fir-none") as f64;
    assert!(bdi_percent < 100.0);
    let inter_gpu = summary.split("## Inter-GPU traffic").nth(1).expect("an inter-GPU traffic section");
    let fir_row = inter_gpu.lines().find(|l| l.starts_with(&format!("| {fir} |"))).unwrap();
    assert!(fir_row.contains(&format!("| {bdi_percent:.1} |")), "bdi {bdi_percent:.1}%: {fir_row}");
    assert!(out.join("fabric_traffic.svg").is_file() && out.join("energy.svg").is_file());
    for dram_only in ["mdc_hit_rate.svg", "size_distribution.svg", "dram_traffic.svg"] {
        assert!(!out.join(dram_only).exists(), "{dram_only} in a fabric report");
    }
}
