pub mod engine_scenes;
pub mod rod2d;
pub mod scene;
pub mod tamsi_blocks;
