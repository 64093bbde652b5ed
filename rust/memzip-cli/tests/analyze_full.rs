//! The whole `memzip analyze --json` document (every codec, every size and
//! encoding count, the sampling notes and the Shannon bounds) on three
//! committed real traces, reads included, pinned: `golden/analyze_full.json`
//! was written by the `memzip` of commit 0057e72, before the analyze speed
//! work (issue 12), with the arguments below. Making `analyze` faster
//! (size-only paths, faster samplers, reading without allocation) must not
//! change one number of its output. Only the trace paths are reduced to file
//! names, and the `e2mc_offline` option (added after 0057e72, false here) is
//! inserted. A deliberate change regenerates the file and says so in its commit
//! (SLC's rows were added with the codec: a trace marks nothing approximable,
//! so they equal E2MC16's, which the test checks).
//!
//! `analyze` runs every registered codec, so a new codec's rows appear in its
//! output: the test then fails, naming the codec, until they are pinned.
//! Bless (rewrite the file from the output as it is: a new codec, or a
//! deliberate change said in the commit; floats are written in their
//! shortest form, so a bless may rewrite digits of unchanged values):
//!
//!     MEMZIP_BLESS=1 cargo test -p memzip-cli --test analyze_full

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

mod common;

const TRACES: [&str; 3] =
    ["rodinia-srad_v2.trace.zst", "cuda-samples-convolutionSeparable.trace.zst", "lonestar-bfs.trace.zst"];

#[test]
fn analyze_output_equals_the_pinned_document() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let golden: Value =
        serde_json::from_str(&std::fs::read_to_string(manifest.join("tests/golden/analyze_full.json")).unwrap())
            .unwrap();
    let traces_dir = manifest.join("../../benchmarks/traces");
    let json = std::env::temp_dir().join(format!("memzip-analyze-full-{}.json", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_memzip"))
        .arg("analyze")
        .args(TRACES.iter().map(|name| traces_dir.join(name)))
        .args(["--e2mc-sample-blocks", "256", "--include-reads", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut now: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    for trace in now["traces"].as_array_mut().unwrap() {
        let name = trace["trace"].as_str().unwrap().rsplit('/').next().unwrap().to_string();
        trace["trace"] = Value::String(name);
    }
    if std::env::var_os("MEMZIP_BLESS").is_some() {
        write_golden(&manifest.join("tests/golden/analyze_full.json"), &now);
        return;
    }
    assert_eq!(now["traces"].as_array().unwrap().len(), TRACES.len());
    let names = |document: &Value| -> Vec<String> {
        document["codecs"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect()
    };
    let pinned_codecs = names(&golden);
    for codec in names(&now) {
        assert!(pinned_codecs.contains(&codec), "golden/analyze_full.json has no rows for codec '{codec}': {BLESS}");
    }
    for codec in &pinned_codecs {
        assert!(names(&now).contains(codec), "codec '{codec}' is pinned but analyze no longer runs it: {BLESS}");
    }
    for (now_trace, pinned_trace) in now["traces"].as_array().unwrap().iter().zip(golden["traces"].as_array().unwrap())
    {
        let name = now_trace["trace"].as_str().unwrap();
        for (key, pinned) in pinned_trace.as_object().unwrap().iter().filter(|(key, _)| *key != "codecs") {
            assert_eq!(&now_trace[key], pinned, "{name}: {key}");
        }
        for pinned_row in pinned_trace["codecs"].as_array().unwrap() {
            let codec = &pinned_row["codec"];
            let row = now_trace["codecs"].as_array().unwrap().iter().find(|row| &row["codec"] == codec);
            assert_eq!(row, Some(pinned_row), "{name}: {codec}");
        }
    }
    for trace in now["traces"].as_array().unwrap() {
        let numbers_of = |name: &str| {
            let mut row = trace["codecs"].as_array().unwrap().iter().find(|c| c["codec"] == name).unwrap().clone();
            row.as_object_mut().unwrap().remove("codec");
            row
        };
        assert_eq!(numbers_of("slc"), numbers_of("e2mc16"), "SLC approximates nothing a trace has not marked");
    }
    assert_eq!(now, golden, "the same rows in another order (the registry's order decides it): {BLESS}");
}

/// How to rewrite the golden file, for failure messages.
const BLESS: &str = "bless with MEMZIP_BLESS=1 cargo test -p memzip-cli --test analyze_full";

/// The document as the golden file holds it: keys sorted, one-space indent,
/// no final newline.
fn write_golden(path: &std::path::Path, document: &Value) {
    std::fs::write(path, common::one_space_indent(&serde_json::to_string_pretty(document).unwrap())).unwrap();
}
