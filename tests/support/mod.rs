pub mod rod2d;
pub mod scene;
