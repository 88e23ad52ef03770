//! All-pairs shortest paths by min-plus squaring: the seed repository's
//! example (`apsp_input` → its exact closure `apsp_output`) on every
//! engine, random graphs against Floyd–Warshall, a graph whose distances
//! round lower after every simple path is covered, and the error paths:
//! negative cycles (through −∞ too), NaN weights, +∞ meeting −∞, in the
//! library and through `spmx apsp`.

mod common;

use spmx::engine::Engine;
use spmx::io::{ReadOptions, read_mtx};
use spmx::{Coo, Csr, app, generate};

fn real(name: &str) -> Option<Csr<f64>> {
    let path = common::real_data_dir().join(name);
    if !path.exists() {
        eprintln!(
            "skipping: {} is absent (set SPMX_REAL_DATA)",
            path.display()
        );
        return None;
    }
    Some(
        read_mtx(&path, &ReadOptions::default())
            .unwrap()
            .coo
            .to_csr(),
    )
}

#[test]
fn seed_example_closure_is_exact_on_every_engine() {
    let (Some(g), Some(want)) = (real("apsp_input.mtx.gz"), real("apsp_output.mtx.gz")) else {
        return;
    };
    for engine in [Engine::Serial, Engine::Cpu, Engine::Auto] {
        let got = app::apsp(&g, engine).unwrap();
        assert_eq!(got.distances, want, "{engine}");
        assert!(
            got.squarings <= 4,
            "{} squarings for 7 vertices",
            got.squarings
        );
    }
}

/// Dense Floyd–Warshall; `None` is "unreachable".
fn floyd_warshall(g: &Csr<f64>) -> Vec<Vec<Option<f64>>> {
    let n = g.nrows();
    let mut d = vec![vec![None; n]; n];
    for (i, row) in d.iter_mut().enumerate() {
        row[i] = Some(0.0);
        let (cols, vals) = g.row(i);
        for (&j, &w) in cols.iter().zip(vals) {
            let cur = row[j as usize].unwrap_or(f64::INFINITY);
            row[j as usize] = Some(cur.min(w));
        }
    }
    for k in 0..n {
        let via_k = d[k].clone();
        for row in d.iter_mut() {
            let Some(dik) = row[k] else { continue };
            for (dij, dkj) in row.iter_mut().zip(&via_k) {
                if let Some(dkj) = dkj {
                    let via = dik + dkj;
                    if dij.is_none_or(|cur| via < cur) {
                        *dij = Some(via);
                    }
                }
            }
        }
    }
    d
}

#[test]
fn random_graphs_match_floyd_warshall() {
    for seed in 0..4 {
        // Integer weights keep every path sum exact.
        let g = generate::uniform(150, 150, 0, 4, seed)
            .unwrap()
            .map(|v| (v * 16.0).ceil());
        let want = floyd_warshall(&g);
        let got = app::apsp(&g, Engine::Cpu).unwrap().distances;
        for (i, want_row) in want.iter().enumerate() {
            for (j, w) in want_row.iter().enumerate() {
                assert_eq!(got.get(i, j), *w, "d({i},{j}), seed {seed}");
            }
        }
    }
}

#[test]
fn negative_cycle_is_reported() {
    let g = Coo::try_new(2, 2, vec![0, 1], vec![1, 0], vec![1.0, -3.0])
        .unwrap()
        .to_csr();
    let err = app::apsp(&g, Engine::Cpu).unwrap_err().to_string();
    assert!(err.contains("negative cycle"), "{err}");
}

#[test]
fn non_square_graph_is_an_error() {
    let err = app::apsp(&Csr::empty(2, 3), Engine::Serial)
        .unwrap_err()
        .to_string();
    assert!(err.contains("must be square, not 2×3"), "{err}");
}

/// The engines APSP runs on here (`auto`: cuda where there is a GPU).
const ENGINES: [Engine; 3] = [Engine::Serial, Engine::Cpu, Engine::Auto];

/// Issue 20: a cycle through a −∞ edge converges (−∞ wherever it reaches)
/// instead of falling without end, so only the diagonal tells: it is
/// reported on every engine, naming a vertex on it.
#[test]
fn apsp_negative_cycle_through_neg_inf() {
    let g = common::neg_inf_cycle_graph();
    for engine in ENGINES {
        let err = app::apsp(&g, engine).unwrap_err().to_string();
        assert!(
            err.contains("negative cycle") && err.contains("vertex 1 to itself is -inf"),
            "{engine}: {err}"
        );
    }
}

/// A file of the kind, read as a user's would be.
fn read_text(text: &str) -> Csr<f64> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.mtx");
    std::fs::write(&path, text).unwrap();
    read_mtx(&path, &ReadOptions::default())
        .unwrap()
        .coo
        .to_csr()
}

/// Issue 20: a skew-symmetric file with ±∞, whose cycle 1 → 2 → 3 → 1
/// weighs −∞ − 1 − 1, is a negative cycle (every distance was −∞).
const SKEW_INF: &str = "%%MatrixMarket matrix coordinate real skew-symmetric\n\
                        3 3 3\n2 1 inf\n3 1 -1\n3 2 1\n";

#[test]
fn apsp_negative_cycle_through_neg_inf_skew_symmetric() {
    let g = read_text(SKEW_INF);
    for engine in ENGINES {
        let err = app::apsp(&g, engine).unwrap_err().to_string();
        assert!(err.contains("negative cycle"), "{engine}: {err}");
    }
}

/// An edge of +∞ is no edge: meeting a −∞ edge it makes no NaN distance
/// (which never converged and was called a negative cycle), on every engine.
#[test]
fn apsp_inf_meets_neg_inf_is_not_a_cycle() {
    let g = common::inf_meets_neg_inf_graph();
    let want = Csr::try_new(
        3,
        3,
        vec![0, 2, 3, 4],
        vec![0, 1, 1, 2],
        vec![0.0, f64::NEG_INFINITY, 0.0, 0.0],
    )
    .unwrap();
    for engine in ENGINES {
        let got = app::apsp(&g, engine).unwrap();
        assert_eq!(got.distances, want, "{engine}");
    }
}

/// A NaN weight reaching the algorithm is named as such, never taken for
/// a negative cycle (the reader names its file and line before that).
#[test]
fn apsp_nan_weight_is_named_not_a_cycle() {
    let g = Csr::try_new(3, 3, vec![0, 1, 2, 2], vec![1, 2], vec![f64::NAN, 1.0]).unwrap();
    for engine in ENGINES {
        let err = app::apsp(&g, engine).unwrap_err().to_string();
        assert!(
            err.contains("edge from vertex 1 to vertex 2 has weight NaN") && !err.contains("cycle"),
            "{engine}: {err}"
        );
    }
}

/// A graph of 8 vertices without negative weights (from the MPI test's
/// random case, seed 1795757654385420934) whose distances still round
/// lower on the fifth squaring, one past the four that cover every simple
/// path: a later squaring sums a path already found in another order. It
/// converges on every engine, to the serial bits, and is no cycle.
const ROUNDS_LOWER_LATE: &str = "%%MatrixMarket matrix coordinate real general\n\
    8 8 21\n1 1 0\n1 5 0\n1 8 1\n2 3 0\n2 5 0\n2 6 0\n2 7 4.0670230205264956e186\n\
    2 8 6.93570315621367e-222\n3 2 0\n3 5 3\n4 7 43862387011766.47\n\
    4 8 4.684985580948156e-6\n5 2 3\n5 4 8.861949966976087e-309\n6 4 8\n7 1 1\n7 6 7\n\
    7 7 4\n7 8 0\n8 1 0\n8 6 4\n";

#[test]
fn distances_that_round_lower_late_converge() {
    let g = read_text(ROUNDS_LOWER_LATE);
    let want = app::apsp(&g, Engine::Serial).unwrap();
    assert_eq!(want.squarings, 5, "squarings for 8 vertices");
    for engine in [Engine::Cpu, Engine::Auto] {
        let got = app::apsp(&g, engine).unwrap();
        assert_eq!(got.squarings, want.squarings, "{engine}");
        assert!(
            got.distances.same_bits(&want.distances),
            "{engine}: distances differ from serial"
        );
    }
}
