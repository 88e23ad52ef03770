//! The graph commands as a user runs them: `spmx triangles` counts what the
//! library counts, in both orders and on every engine here (and says which
//! ran); `spmx bfs` writes each reached vertex's level and parent (vertices
//! counted from 0), equal to the library's search; bad sources and
//! non-square graphs are refused, naming the problem.

mod run;

use run::{s, spmx, tempdir};
use spmx::app::{bfs, triangles, triangles::TriangleOrder};
use spmx::io::{Field, ReadOptions, read_mtx, write_mtx};
use spmx::{Csr, Engine, generate};

#[test]
fn triangles_match_the_library_in_every_order_and_engine() {
    let dir = tempdir();
    let g = dir.path().join("g.mtx");
    let a = generate::power_law(600, 600, 10.0, 2.2, 5).unwrap();
    write_mtx(&g, &a, Field::Real).unwrap();
    let want = triangles(&a, TriangleOrder::Natural, Engine::Serial).unwrap();
    assert!(want.count > 0);
    for order in ["natural", "degree"] {
        for engine in ["serial", "cpu", "auto"] {
            let run = spmx(
                dir.path(),
                &["triangles", s(&g), "--order", order, "--engine", engine],
            );
            let run = run.success();
            let line = format!("triangles   {}", want.count);
            assert!(run.stderr.contains(&line), "{}: {}", run.args, run.stderr);
            assert!(
                run.stderr.contains(&format!("order       {order}")),
                "{}",
                run.stderr
            );
        }
    }
    // cuda: the GPU's masked product where there is a GPU, the same count;
    // elsewhere an error saying the engine is not available.
    let run = spmx(dir.path(), &["triangles", s(&g), "--engine", "cuda"]);
    let line = format!("triangles   {}", want.count);
    let not_here = "the cuda engine is not available";
    assert!(
        run.stderr.contains(&line) || run.stderr.contains(not_here),
        "{}",
        run.stderr
    );
    let wide = dir.path().join("wide.mtx");
    write_mtx(&wide, &Csr::<f64>::empty(2, 3), Field::Real).unwrap();
    let run = spmx(dir.path(), &["triangles", s(&wide)]).failure();
    assert!(
        run.stderr
            .contains("triangles: the graph is 2×3, not square"),
        "{}",
        run.stderr
    );
}

#[test]
fn bfs_writes_levels_and_parents() {
    let dir = tempdir();
    let g = dir.path().join("g.mtx");
    let a = generate::power_law(3000, 3000, 6.0, 2.1, 9).unwrap();
    write_mtx(&g, &a, Field::Real).unwrap();
    let want = bfs(&a, 4, Engine::Serial).unwrap();
    // cuda where there is a GPU, the same levels and parents; elsewhere an
    // error saying the engine is not available.
    for engine in ["serial", "cpu", "cuda"] {
        let out = dir.path().join(format!("levels-{engine}.mtx"));
        let run = spmx(
            dir.path(),
            &[
                "bfs",
                s(&g),
                "--source",
                "4",
                "-o",
                s(&out),
                "--engine",
                engine,
            ],
        );
        if engine == "cuda" && run.stderr.contains("the cuda engine is not available") {
            continue;
        }
        run.success();
        let got = read_mtx::<i64>(&out, &ReadOptions::default())
            .unwrap()
            .coo
            .try_to_csr()
            .unwrap();
        assert_eq!(got.shape(), (3000, 2));
        for v in 0..3000 {
            let level = want.level(v).map(i64::from);
            let parent = want.parent(v).map(i64::from);
            assert_eq!(
                (got.get(v, 0), got.get(v, 1)),
                (level, parent),
                "vertex {}",
                v + 1
            );
        }
    }
    let run = spmx(dir.path(), &["bfs", s(&g), "--source", "3000"]).failure();
    let error = "the source is vertex 3000 (counted from 0), and the graph has 3000 vertices";
    assert!(run.stderr.contains(error), "{}", run.stderr);
}
