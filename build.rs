//! Build script: forwards the target triple to the tests (they compile C with the `cc` crate)
//! and gives the shared library its versioned SONAME (`docs/packaging.md` §4).

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    println!("cargo:rustc-env=CONTACT_SOLVERS_TARGET={target}");

    // cargo-c sets its own SONAME and turns the `capi` feature on; a second `-soname` would
    // win and leave a name for which cargo-c installs no symlink (docs/packaging.md §5, trap 2).
    let capi = std::env::var_os("CARGO_FEATURE_CAPI").is_some();
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if !capi && linux {
        let minor = std::env::var("CARGO_PKG_VERSION_MINOR").unwrap_or_else(|_| "0".into());
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcontact_solvers.so.0.{minor}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
