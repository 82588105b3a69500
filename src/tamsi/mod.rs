//! TAMSI (placeholder while the module is written).
