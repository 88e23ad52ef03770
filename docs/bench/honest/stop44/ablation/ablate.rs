// Temporary experiment (not to be committed): what bounds the replay.
use spmx::PlusTimes;
use spmx::engine::cuda::Gpu;
use spmx::engine::cuda::spgemm_plan::SpgemmPlan;
use spmx::generate::{GenSpec, RmatParams};
use spmx::Csr;
use std::time::Instant;

fn run(gpu: &Gpu, name: &str, a: Csr<f32>) {
    let mut plan = SpgemmPlan::<PlusTimes<f32>>::new(gpu, &a, &a).unwrap();
    let mut line = format!("{name:22} lists {} resident {} |", plan.replays(), plan.replays_on_resident_grid());
    for mode in [0u32, 1, 2, 3, 4, 5, 7, 0] {
        plan.ablate = mode;
        let mut best = f64::MAX;
        for _ in 0..5 {
            gpu.sync().unwrap();
            let k = 20;
            let s = Instant::now();
            for _ in 0..k { plan.numeric().unwrap(); }
            gpu.sync().unwrap();
            best = best.min(s.elapsed().as_secs_f64() * 1e6 / k as f64);
        }
        line += &format!(" m{mode} {best:8.1}");
    }
    println!("{line}");
}

fn f32csr(c: Csr<f64>) -> Csr<f32> { c.map(|v| v as f32) }

fn main() {
    let gpu = Gpu::get().unwrap();
    println!("modes: 1 no B gather, 2 no A gather, 4 no fold (lane sums stored); us per launch, back to back");
    let args: Vec<String> = std::env::args().skip(1).collect();
    for f in args.iter().filter(|f| !f.starts_with("gen:")) {
        let m = spmx::io::read_mtx::<f32>(std::path::Path::new(f), &Default::default()).unwrap();
        let a = m.coo.to_csr();
        if a.nrows() != a.ncols() { continue; }
        run(gpu, f.rsplit('/').next().unwrap(), a);
    }
    let gens = [
        ("poisson3d-160", GenSpec::Poisson3d { n: 160 }),
        ("poisson2d-2000", GenSpec::Poisson2d { n: 2000 }),
        ("rmat16", GenSpec::Rmat(RmatParams::graph500(16))),
        ("powerlaw-1M-e2.0", GenSpec::PowerLaw { nrows: 1_000_000, ncols: 1_000_000, mean_row_len: 10.0, exponent: 2.0 }),
        ("banded-2M-11", GenSpec::Banded { n: 2_000_000, lower: 5, upper: 5 }),
        ("banded-1M-33", GenSpec::Banded { n: 1_000_000, lower: 16, upper: 16 }),
    ];
    for (name, g) in gens {
        if !args.iter().any(|a| a == "gen:all" || *a == format!("gen:{name}")) { continue; }
        run(gpu, name, f32csr(g.generate(1).unwrap()));
    }
}
