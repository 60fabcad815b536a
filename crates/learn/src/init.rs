//! Seeded network initialisation. burn's initialisers draw from one process-wide generator
//! (Flex keeps it in a global), so every module stonelab builds is built under one lock right
//! after seeding that generator with the module's own seed: a network depends only on its seed,
//! whatever other learners the process builds at the same time.

use std::sync::Mutex;

use burn::tensor::Device;

static INIT: Mutex<()> = Mutex::new(());

/// Runs `build` (which creates a module on `device`) with the generator seeded by `seed`, with
/// no other seeded build in between.
pub fn seeded<M>(device: &Device, seed: u64, build: impl FnOnce() -> M) -> M {
    let _guard = INIT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    device.seed(seed);
    build()
}
