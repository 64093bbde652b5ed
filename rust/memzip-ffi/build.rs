// Generates the C++ side of the bridge (memzip-ffi/src/lib.rs.h and .cc) and
// compiles it into this crate, so the staticlib carries both halves.
fn main() {
    cxx_build::bridge("src/lib.rs").std("c++14").compile("memzip-ffi-bridge");
    println!("cargo:rerun-if-changed=src/lib.rs");
}
