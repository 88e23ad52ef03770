// Temporary experiment (not to be committed): where a small plan's
// numeric phase spends its microseconds.
use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::spgemm_plan::SpgemmPlan;
use spmx::PlusTimes;
use std::time::Instant;

fn med(mut v: Vec<f64>) -> f64 { v.sort_by(|a, b| a.partial_cmp(b).unwrap()); v[v.len() / 2] }

fn main() {
    let gpu = Gpu::get().unwrap();
    let n = 2000;
    // empty kernel + sync
    let mut t = vec![];
    for _ in 0..n { gpu.sync().unwrap(); let s = Instant::now(); gpu.spin(0).unwrap(); gpu.sync().unwrap(); t.push(s.elapsed().as_secs_f64() * 1e6); }
    let mut h = vec![];
    for _ in 0..n { gpu.sync().unwrap(); let s = Instant::now(); gpu.spin(0).unwrap(); h.push(s.elapsed().as_secs_f64() * 1e6); }
    gpu.sync().unwrap();
    let s = Instant::now(); for _ in 0..n { gpu.spin(0).unwrap(); } gpu.sync().unwrap(); let b = s.elapsed().as_secs_f64() * 1e6 / n as f64;
    println!("spin0: launch+sync {:.2} us, launch host {:.2} us, back-to-back {:.2} us", med(t), med(h), b);
    for f in std::env::args().skip(1) {
        let m = spmx::io::read_mtx::<f32>(std::path::Path::new(&f), &Default::default()).unwrap();
        let a = m.coo.to_csr();
        if a.nrows() != a.ncols() { continue; }
        let mut plan = SpgemmPlan::<PlusTimes<f32>>::new(gpu, &a, &a).unwrap();
        let (mut t, mut h) = (vec![], vec![]);
        for _ in 0..n { gpu.sync().unwrap(); let s = Instant::now(); plan.numeric().unwrap(); gpu.sync().unwrap(); t.push(s.elapsed().as_secs_f64() * 1e6); }
        for _ in 0..n { gpu.sync().unwrap(); let s = Instant::now(); plan.numeric().unwrap(); h.push(s.elapsed().as_secs_f64() * 1e6); }
        gpu.sync().unwrap();
        let s = Instant::now(); for _ in 0..n { plan.numeric().unwrap(); } gpu.sync().unwrap(); let b = s.elapsed().as_secs_f64() * 1e6 / n as f64;
        println!("{}: replays {} resident {} | launch+sync {:.2} us, launch host {:.2} us, back-to-back {:.2} us",
            f.rsplit('/').next().unwrap(), plan.replays(), plan.replays_on_resident_grid(), med(t), med(h), b);
    }
}
