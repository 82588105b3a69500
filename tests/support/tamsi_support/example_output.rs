//! Checks of what the TAMSI examples print (`examples_c/rolling_cylinder.c`, `pizza_saver.cpp`,
//! and the Python and Julia mirrors of the rolling cylinder, which print the same lines) against
//! Drake's reference values (`docs/tamsi_cases.md`).

use std::collections::HashMap;

use super::reference::{
    PIZZA_LARGE_MOMENT, PIZZA_NO_CONTACT, PIZZA_SMALL_MOMENT, SLIDING_AFTER_IMPACT, STICTION_REFERENCE,
};

/// One block of an example's output: its heading and `label: numbers` lines.
pub struct Block {
    pub heading: String,
    pub fields: HashMap<String, Vec<f64>>,
}

impl Block {
    #[track_caller]
    pub fn get(&self, label: &str) -> &[f64] {
        self.fields.get(label).unwrap_or_else(|| panic!("{}: no '{label}'", self.heading))
    }
}

pub fn parse(stdout: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    for line in stdout.lines() {
        if let Some(rest) = line.strip_prefix("  ") {
            let Some((label, values)) = rest.split_once(':') else { continue };
            let numbers = values.split_whitespace().filter_map(|t| t.parse::<f64>().ok()).collect();
            if let Some(b) = blocks.last_mut() {
                b.fields.insert(label.trim().to_string(), numbers);
            }
        } else if line.contains(", nc = ") {
            blocks.push(Block { heading: line.to_string(), fields: HashMap::new() });
        }
    }
    blocks
}

#[track_caller]
pub fn close(what: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (a, b) in got.iter().zip(want) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{what}: {a:e} vs {b:e}");
    }
}

pub fn check_rolling_cylinder(stdout: &str) {
    let blocks = parse(stdout);
    assert_eq!(blocks.len(), STICTION_REFERENCE.len() + 1, "{stdout}");
    for (b, r) in blocks.iter().zip(&STICTION_REFERENCE) {
        assert_eq!(b.heading, format!("stiction after impact: vx0 = 0.5 m/s, nc = {}", r.nc));
        assert_eq!(b.get("outcome"), &[0.0]);
        assert_eq!(b.get("iterations"), &[r.iterations as f64]);
        close("v", b.get("v [m/s, m/s, rad/s]"), &r.v);
        close("fn", b.get("fn contact 0 [N]"), &[r.fn_]);
        close("ft", b.get("ft contact 0 [N]"), &[r.ft0, 0.0]);
        close("tau_f", b.get("tau_f [N, N, N m]"), &r.tau_f);
    }
    let s = blocks.last().unwrap();
    assert_eq!(s.heading, "sliding after impact: vx0 = 0.7 m/s, nc = 1");
    assert_eq!(s.get("iterations"), &[SLIDING_AFTER_IMPACT.iterations as f64]);
    close("v", s.get("v [m/s, m/s, rad/s]"), SLIDING_AFTER_IMPACT.v);
    close("fn", s.get("fn contact 0 [N]"), SLIDING_AFTER_IMPACT.fn_);
    close("ft", s.get("ft contact 0 [N]"), SLIDING_AFTER_IMPACT.ft);
    close("tau", s.get("tau [N, N, N m]"), SLIDING_AFTER_IMPACT.tau);
    assert!(stdout.contains("regime                : sliding"));
}

pub fn check_pizza_saver(stdout: &str) {
    let blocks = parse(stdout);
    let cases = [
        ("small applied moment: Mz = 3 N m, nc = 3", &PIZZA_SMALL_MOMENT),
        ("large applied moment: Mz = 6 N m, nc = 3", &PIZZA_LARGE_MOMENT),
        ("no contact: Mz = 6 N m, nc = 0", &PIZZA_NO_CONTACT),
    ];
    assert_eq!(blocks.len(), cases.len(), "{stdout}");
    for (b, (heading, r)) in blocks.iter().zip(cases) {
        assert_eq!(b.heading, heading);
        assert_eq!(b.get("outcome"), &[0.0]);
        assert_eq!(b.get("iterations"), &[r.iterations as f64]);
        close("v", b.get("v [m/s, m/s, rad/s]"), r.v);
        close("tau_f", b.get("tau_f [N, N, N m]"), r.tau_f);
        close("tau", b.get("tau [N, N, N m]"), r.tau);
        if !r.ft.is_empty() {
            close("fn", b.get("fn [N]"), r.fn_);
            close("ft", b.get("ft [N]"), r.ft);
        }
    }
    assert!(stdout.contains("usage error caught: no problem data"), "{stdout}");
}
