//! The README's C quick start, as written: the C program under `<!-- quickstart-program -->` and
//! the commands under `<!-- quickstart-build -->` are taken from `README.md` and run unchanged
//! with `sh` in a scratch folder laid out like the repository: `include` is the repository's,
//! `target/release` is the folder in which this test build left `libcontact_solvers.so` (the
//! `cargo build` line is the one not run: `cargo test` has built the library with the same build
//! script). No link or copy of the library is made under another name, so the program runs only
//! if the build folder's SONAME is a file the folder has. It must print `v = (0.95, 0)`.

use crate::c_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use c_support::{out_dir, skipped};

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The body of the fenced code block right after the line `<!-- {marker} -->`, and its language.
fn block_after(text: &str, marker: &str) -> (String, String) {
    let tag = format!("<!-- {marker} -->");
    let rest = &text[text.find(&tag).unwrap_or_else(|| panic!("README.md has no {tag}")) + tag.len()..];
    let rest = rest.trim_start_matches(['\n', '\r']);
    let (fence, body) = rest.split_once('\n').expect("a code block after the marker");
    assert!(fence.starts_with("```"), "{tag} is not followed by a code block: {fence}");
    let end = body.find("\n```").expect("an unterminated code block");
    (fence.trim_start_matches('`').to_string(), body[..=end].to_string())
}

/// The folder holding the `libcontact_solvers.so` this test build made (`target/<profile>/deps`).
fn build_folder() -> PathBuf {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    assert!(deps.join("libcontact_solvers.so").exists(), "no libcontact_solvers.so in {}", deps.display());
    deps
}

#[test]
fn readme_c_quick_start_builds_and_runs_from_the_build_folder() {
    if Command::new("cc").arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
        return skipped("no `cc` on PATH (the README's command uses it)");
    }
    let text = readme();
    let (lang, program) = block_after(&text, "quickstart-program");
    assert_eq!(lang, "c");
    let (lang, commands) = block_after(&text, "quickstart-build");
    assert_eq!(lang, "sh");
    let mut lines = commands.lines();
    assert_eq!(lines.next(), Some("cargo build --release"), "the build block starts with the build");
    let script: Vec<&str> = lines.collect();
    assert!(script.iter().any(|l| l.starts_with("cc quickstart.c")), "no compile command: {script:?}");

    let dir = out_dir("readme-quickstart");
    for entry in ["quickstart.c", "quickstart", "include", "target"] {
        let p = dir.join(entry);
        let _ = std::fs::remove_file(&p);
        let _ = std::fs::remove_dir_all(&p);
    }
    std::fs::write(dir.join("quickstart.c"), &program).unwrap();
    std::os::unix::fs::symlink(c_support::include_dir(), dir.join("include")).unwrap();
    std::fs::create_dir(dir.join("target")).unwrap();
    std::os::unix::fs::symlink(build_folder(), dir.join("target/release")).unwrap();

    let out = Command::new("sh")
        .arg("-ec")
        .arg(script.join("\n"))
        .current_dir(&dir)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("sh runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the README's commands failed ({:?}):\n{}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        script.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout, "v = (0.95, 0)\n");

    // The program records the build folder's SONAME, which is the library's own file name.
    let dynamic =
        Command::new("readelf").arg("-d").arg(dir.join("quickstart")).output().expect("readelf runs");
    let dynamic = String::from_utf8_lossy(&dynamic.stdout);
    assert!(dynamic.contains("Shared library: [libcontact_solvers.so]"), "{dynamic}");
}
