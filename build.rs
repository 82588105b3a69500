//! Build script: forwards the target triple to the tests (they compile C with the `cc` crate)
//! and names the shared library of a plain cargo build (`docs/packaging.md` §4).
//!
//! Two SONAMEs, one per way the library is delivered:
//! * `cargo build` / `cargo test`: `libcontact_solvers.so`, the name of the file in the build
//!   folder, so a program linked with `-L target/release -lcontact_solvers` and an rpath runs
//!   from the build folder as it is (a versioned SONAME names a file the build folder does not
//!   have, and the loader fails at start-up).
//! * `cargo cinstall` (cargo-c, which turns the `capi` feature on): cargo-c's versioned SONAME
//!   `libcontact_solvers.so.0.<minor>` with the file and links it installs. A second `-soname`
//!   here would win over cargo-c's and leave a name for which it installs no link
//!   (`docs/packaging.md` §5, trap 2), so none is given.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=CONTACT_SOLVERS_TARGET={target}");

    let capi = std::env::var_os("CARGO_FEATURE_CAPI").is_some();
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if !capi && linux {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcontact_solvers.so");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
