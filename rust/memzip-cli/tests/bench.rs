//! `memzip bench`: the front door of scripts/bench.sh.

use std::process::Command;

fn memzip_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_memzip")).current_dir(dir).args(args).output().expect("run memzip")
}

#[test]
fn lists_every_manifest_from_inside_the_repository() {
    let out = memzip_in(std::path::Path::new(env!("CARGO_MANIFEST_DIR")), &["bench", "list"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let list = String::from_utf8(out.stdout).unwrap();
    let manifests = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../../benchmarks"))
        .unwrap()
        .flatten()
        .filter(|suite| suite.path().is_dir())
        .flat_map(|suite| std::fs::read_dir(suite.path()).unwrap().flatten())
        .filter(|f| f.path().extension().is_some_and(|e| e == "env"))
        .count();
    assert_eq!(list.lines().count(), manifests + 1, "a header and one line per manifest:\n{list}");
    assert!(list.lines().any(|l| l.starts_with("rodinia") && l.contains(" bfs ") && l.ends_with("runs")), "{list}");
}

#[test]
fn errors_name_the_problem() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = memzip_in(root, &["bench", "run", "no-such-benchmark", "--codec", "none"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown benchmark 'no-such-benchmark'"));
    // Outside any checkout (the cargo temp dir is inside this one).
    let outside = std::env::temp_dir().join(format!("memzip-bench-outside-{}", std::process::id()));
    std::fs::create_dir_all(&outside).unwrap();
    let out = memzip_in(&outside, &["bench", "list"]);
    std::fs::remove_dir_all(&outside).unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("inside a memzip checkout"));
}

#[test]
fn a_bad_gpu_or_one_v3_2_1_lacks_stops_run_and_bench_run_before_anything_runs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::env::temp_dir().join(format!("memzip-gpu-run-{}", std::process::id()));
    let out_text = out.to_string_lossy();
    let v321 = "memzip: error: --gpu qv100: gpgpu-sim v3.2.1 has the gtx580 config only \
                (the qv100 config needs --version dev)\n";
    let bad = "memzip: error: --gpu 'volta': not a GPU memzip simulates (valid: gtx580, qv100, rtx3070)\n";
    let cases: [(&[&str], &str); 4] = [
        (&["run", "--codec", "none", "--out", &out_text, "--gpu", "qv100", "--version", "v3.2.1", "--", "true"], v321),
        (&["run", "--codec", "none", "--out", &out_text, "--gpu", "volta", "--", "true"], bad),
        (
            &[
                "bench",
                "run",
                "rodinia/bfs",
                "--codec",
                "none",
                "--out",
                &out_text,
                "--gpu",
                "qv100",
                "--version",
                "v3.2.1",
            ],
            v321,
        ),
        (&["bench", "run", "rodinia/bfs", "--codec", "none", "--out", &out_text, "--gpu", "volta"], bad),
    ];
    for (args, error) in cases {
        let output = memzip_in(root, args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), error, "{args:?}");
        assert!(!out.exists(), "{args:?} ran something");
    }
}
