//! Training steps/s of value networks at batch 1024 (sizing the default supervised run).
use burn::module::Module;
use burn::optim::{AdamConfig, GradientsParams};
use burn::tensor::{Device, Tensor, TensorData};
use learn::value::{ValueArch, ValueNet};
use std::time::Instant;

fn main() {
    let archs: Vec<String> = std::env::args().skip(1).collect();
    for a in archs {
        let arch: ValueArch = a.parse().expect("arch");
        let planes = if matches!(arch, ValueArch::Mlp { .. }) {
            3
        } else {
            13
        };
        let device = Device::default().autodiff();
        let mut net = ValueNet::new(&arch, planes, 8, 1, &device);
        let mut optim = AdamConfig::new().with_beta_2(0.99).init();
        let batch = 1024;
        let x: Vec<f32> = (0..batch * planes * 64)
            .map(|i| ((i * 7919) % 3 == 0) as u8 as f32)
            .collect();
        let y: Vec<f32> = (0..batch).map(|i| (i % 3) as f32 / 2.0).collect();
        let steps = 20;
        let t = Instant::now();
        for _ in 0..steps {
            let input =
                Tensor::<4>::from_data(TensorData::new(x.clone(), [batch, planes, 8, 8]), &device);
            let target = Tensor::<1>::from_data(TensorData::new(y.clone(), [batch]), &device);
            let loss = (net.forward(input) - target).powi_scalar(2).mean();
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            net = optim.step(1e-3, net, grads);
        }
        let s = t.elapsed().as_secs_f64() / steps as f64;
        let plain = Device::default();
        let inf = net.valid();
        let t = Instant::now();
        for _ in 0..steps {
            let _ = inf.predict(x.clone(), planes, 8, &plain);
        }
        let f = t.elapsed().as_secs_f64() / steps as f64;
        println!(
            "{a}: {:.1} ms/step ({:.0} pos/s train), forward {:.1} ms ({:.0} pos/s)",
            s * 1e3,
            batch as f64 / s,
            f * 1e3,
            batch as f64 / f
        );
    }
}
