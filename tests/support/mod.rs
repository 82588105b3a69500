pub mod counting_alloc;
pub mod engine_scenes;
pub mod ipm_blocks;
pub mod rod2d;
pub mod scene;
pub mod stacks;
pub mod tamsi_blocks;
