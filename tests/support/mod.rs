pub mod rod2d;
