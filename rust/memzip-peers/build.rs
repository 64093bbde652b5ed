//! Compiles the peers' size-only functions only when an environment variable
//! points at a peer's sources (a checkout or a bare git directory; files are
//! taken from its HEAD). The sources are copied into OUT_DIR, never into this
//! repository, and compiled unchanged behind our wrappers in `csrc/`.
//!
//! - `MEMZIP_PEER_BDI_REPO`: CMU-SAFARI/BDICompression (`compression.c`).
//! - `MEMZIP_PEER_MPC_REPO`: xyz123479/CAL_22-MPC_gpgpu-sim (`src/gpgpu-sim/comp.cc`
//!   and what it includes).
//!
//! Each peer found sets `cfg(memzip_peer_bdi)` / `cfg(memzip_peer_mpc)` and
//! `MEMZIP_PEER_*_COMMIT` (the commit compiled) for the binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(memzip_peer_bdi)");
    println!("cargo::rustc-check-cfg=cfg(memzip_peer_mpc)");
    println!("cargo::rerun-if-env-changed=MEMZIP_PEER_BDI_REPO");
    println!("cargo::rerun-if-env-changed=MEMZIP_PEER_MPC_REPO");
    println!("cargo::rerun-if-changed=csrc");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    if let Some(repo) = peer_repo("MEMZIP_PEER_BDI_REPO") {
        build_cmu_bdi(&repo, &out.join("cmu-bdi"));
    }
    if let Some(repo) = peer_repo("MEMZIP_PEER_MPC_REPO") {
        build_mpc(&repo, &out.join("mpc"));
    }
}

fn peer_repo(variable: &str) -> Option<PathBuf> {
    let value = std::env::var_os(variable).filter(|v| !v.is_empty())?;
    let path = PathBuf::from(value);
    if !path.exists() {
        panic!("{variable}={}: no such directory", path.display());
    }
    Some(path)
}

/// `file` (a path at the peer's root) from a checkout, or from HEAD of a git
/// directory, written under `dest`.
fn extract(repo: &Path, file: &str, dest: &Path) {
    let target = dest.join(file);
    std::fs::create_dir_all(target.parent().expect("file in a directory")).expect("create OUT_DIR subdirectory");
    let checked_out = repo.join(file);
    if checked_out.is_file() {
        std::fs::copy(&checked_out, &target).expect("copy peer source");
        return;
    }
    let shown = git(repo, &["show", &format!("HEAD:{file}")]);
    std::fs::write(&target, shown).expect("write peer source");
}

/// Output of `git -C repo args` (works for bare git directories too).
fn git(repo: &Path, args: &[&str]) -> Vec<u8> {
    let output = Command::new("git").arg("-C").arg(repo).args(args).output().expect("run git");
    if !output.status.success() {
        panic!("{}: git {} failed: {}", repo.display(), args.join(" "), String::from_utf8_lossy(&output.stderr).trim());
    }
    output.stdout
}

fn head_commit(repo: &Path) -> String {
    String::from_utf8_lossy(&git(repo, &["rev-parse", "HEAD"])).trim().to_string()
}

/// The files of directory `dir` of the peer (checkout or HEAD).
fn list_dir(repo: &Path, dir: &str) -> Vec<String> {
    if let Ok(entries) = std::fs::read_dir(repo.join(dir)) {
        let mut names: Vec<String> =
            entries.filter_map(|e| e.ok()).map(|e| format!("{dir}/{}", e.file_name().to_string_lossy())).collect();
        names.sort();
        return names;
    }
    String::from_utf8_lossy(&git(repo, &["ls-tree", "--name-only", "HEAD", &format!("{dir}/")]))
        .lines()
        .map(str::to_string)
        .collect()
}

fn build_cmu_bdi(repo: &Path, dest: &Path) {
    extract(repo, "compression.c", dest);
    cc::Build::new()
        .file("csrc/peer_cmu_bdi.c")
        .include(dest)
        .opt_level(2)
        .warnings(false)
        .flag_if_supported("-w")
        .compile("memzip_peer_cmu_bdi");
    println!("cargo::rustc-cfg=memzip_peer_bdi");
    println!("cargo::rustc-env=MEMZIP_PEER_BDI_COMMIT={}", head_commit(repo));
}

fn build_mpc(repo: &Path, dest: &Path) {
    let mut sources: Vec<String> = list_dir(repo, "src/gpgpu-sim/MPCmodules");
    sources.retain(|f| f.ends_with(".h") || f.ends_with(".cpp"));
    sources.extend(
        [
            "src/gpgpu-sim/comp.cc",
            "src/gpgpu-sim/comp.h",
            "src/abstract_hardware_model.h",
            "src/json/json.h",
            "src/json/json-forwards.h",
            "src/jsoncpp.cc",
        ]
        .map(String::from),
    );
    for file in &sources {
        extract(repo, file, dest);
    }
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .opt_level(2)
        .warnings(false)
        .flag_if_supported("-w")
        .flag_if_supported("-std=c++14")
        // The simulator's abstract_hardware_model.h needs CUDA headers and
        // nothing in comp.cc uses it: its include guard skips it. The
        // standard headers it would have brought are included directly.
        .define("ABSTRACT_HARDWARE_MODEL_INCLUDED", None)
        .flag("-include")
        .flag("set")
        .flag("-include")
        .flag("cstring")
        .flag("-include")
        .flag("cstdint")
        .include(dest.join("src/gpgpu-sim"))
        .include(dest.join("src"))
        .file("csrc/peer_mpc.cc");
    for file in sources.iter().filter(|f| f.ends_with(".cpp") || f.ends_with(".cc")) {
        build.file(dest.join(file));
    }
    build.compile("memzip_peer_mpc");
    println!("cargo::rustc-cfg=memzip_peer_mpc");
    println!("cargo::rustc-env=MEMZIP_PEER_MPC_COMMIT={}", head_commit(repo));
}
