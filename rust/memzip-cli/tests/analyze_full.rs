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

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

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
    assert_eq!(now["traces"].as_array().unwrap().len(), TRACES.len());
    for (now_trace, pinned_trace) in now["traces"].as_array().unwrap().iter().zip(golden["traces"].as_array().unwrap())
    {
        let name = now_trace["trace"].as_str().unwrap();
        for (key, pinned) in pinned_trace.as_object().unwrap() {
            assert_eq!(&now_trace[key], pinned, "{name}: {key}");
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
    assert_eq!(now, golden);
}
