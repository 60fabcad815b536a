//! Seeded network initialisation. burn's initialisers draw from one process-wide generator
//! (Flex keeps it in a global), and lazily, at a parameter's first use. So every module stonelab
//! builds is built under one lock right after seeding that generator with the module's own seed,
//! and all its parameters are drawn before the lock is released: a network depends only on its
//! seed, whatever other learners the process builds or trains at the same time.

use std::sync::Mutex;

use burn::module::{Module, ModuleVisitor, Param};
use burn::tensor::{Device, Tensor};

static INIT: Mutex<()> = Mutex::new(());

/// Touches every float parameter, which draws the lazy ones, in the module's field order (the
/// order burn's own traversals — `valid()`, saving — would draw them in).
struct Materialise;

impl ModuleVisitor for Materialise {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let _ = param.val();
    }
}

/// Runs `build` (which creates a module on `device`) with the generator seeded by `seed`, and
/// draws all its parameters, with no other seeded build in between.
pub fn seeded<M: Module>(device: &Device, seed: u64, build: impl FnOnce() -> M) -> M {
    let _guard = INIT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    device.seed(seed);
    let module = build();
    module.visit(&mut Materialise);
    module
}
