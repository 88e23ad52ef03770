//! All-pairs shortest paths (by min-plus squaring, [`apsp_squaring`], where
//! the test is of the squarings; `tests/sssp.rs` has Dijkstra's): the seed repository's
//! example (`apsp_input` → its exact closure `apsp_output`) on every
//! engine, random graphs against Floyd–Warshall, a graph whose distances
//! round lower after every simple path is covered, a zero cycle written
//! with −0, parallel edges (the lightest taken), the progress of the
//! squarings, and the error paths: negative cycles (through −∞ too, and
//! found after the first squaring that covers one), NaN weights, +∞
//! meeting −∞, a graph whose first distance matrix does not fit in memory.

mod common;

use common::reference::floyd_warshall;

use spmx::app::apsp::{ApspProgress, apsp_squaring, apsp_with_progress, graph_from_coo};
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

#[test]
fn random_graphs_match_floyd_warshall() {
    for seed in 0..4 {
        // Integer weights keep every path sum exact.
        let g = generate::uniform(150, 150, 0, 4, seed)
            .unwrap()
            .map(|v| (v * 16.0).ceil());
        let want = floyd_warshall(&g);
        let squared = apsp_squaring(&g, Engine::Cpu, &mut |_| {}).unwrap();
        for got in [app::apsp(&g, Engine::Cpu).unwrap(), squared] {
            for (i, want_row) in want.iter().enumerate() {
                for (j, w) in want_row.iter().enumerate() {
                    let (d, method) = (got.distances.get(i, j), got.method);
                    assert_eq!(d, *w, "d({i},{j}), seed {seed}, {method:?}");
                }
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
    let want = apsp_squaring(&g, Engine::Serial, &mut |_| {}).unwrap();
    assert_eq!(want.squarings, 5, "squarings for 8 vertices");
    for engine in [Engine::Cpu, Engine::Auto] {
        let got = apsp_squaring(&g, engine, &mut |_| {}).unwrap();
        assert_eq!(got.squarings, want.squarings, "{engine}");
        assert!(
            got.distances.same_bits(&want.distances),
            "{engine}: distances differ from serial"
        );
    }
}

/// A cycle of zero weights written `-0` is a zero cycle, as written `0`:
/// −0 is read as 0 (it was refused as "distances still fall", its signs
/// going round the cycle), and the distances are +0 bit for bit.
#[test]
fn apsp_negative_zero_cycle_is_a_zero_cycle() {
    let cycle = |w: f64| {
        Coo::try_new(3, 3, vec![0, 1, 2], vec![1, 2, 0], vec![w; 3])
            .unwrap()
            .to_csr()
    };
    for engine in ENGINES {
        let got = app::apsp(&cycle(-0.0), engine).unwrap();
        let want = app::apsp(&cycle(0.0), engine).unwrap();
        assert!(got.distances.same_bits(&want.distances), "{engine}");
        assert_eq!(got.distances.nnz(), 9, "{engine}");
        let bits: Vec<u64> = got.distances.values().iter().map(|v| v.to_bits()).collect();
        assert_eq!(bits, [0u64; 9], "{engine}: every distance +0");
    }
}

/// Parallel edges (a source and target stored more than once) are
/// combined into the lightest, not summed: 1 → 2 by 5, 2 or 7 is 2 long,
/// and −0 beside 0 is 0.
#[test]
fn apsp_parallel_edges_take_the_lightest() {
    let g = read_text(
        "%%MatrixMarket matrix coordinate real general\n\
         3 3 7\n1 2 5\n1 2 2\n2 3 1\n1 2 7\n2 3 4\n3 1 -0\n3 1 0\n",
    );
    let coo = Coo::try_new(
        3,
        3,
        vec![0, 0, 1, 0, 1, 2, 2],
        vec![1, 1, 2, 1, 2, 0, 0],
        vec![5.0, 2.0, 1.0, 7.0, 4.0, -0.0, 0.0],
    )
    .unwrap();
    let graph = graph_from_coo(&coo).unwrap();
    assert_eq!(graph.combined, 4);
    assert_eq!(graph.edges.get(0, 1), Some(2.0));
    assert_eq!(graph.edges.get(1, 2), Some(1.0));
    assert_eq!(graph.edges.get(2, 0), Some(0.0));
    assert_eq!(
        g.get(0, 1),
        Some(14.0),
        "COO → CSR sums; graph_from_coo does not"
    );
    for engine in ENGINES {
        let d = app::apsp(&graph.edges, engine).unwrap().distances;
        assert_eq!(
            (d.get(0, 1), d.get(0, 2), d.get(2, 1)),
            (Some(2.0), Some(3.0), Some(2.0))
        );
    }
    // Without parallel edges the graph is COO → CSR as it is.
    let single = graph_from_coo(&graph.edges.to_coo()).unwrap();
    assert_eq!((single.combined, &single.edges), (0, &graph.edges));
}

/// A long path with a negative cycle at its start: the cycle shows on the
/// diagonal after the first squaring, and is reported then. Looked at only
/// after the last squaring, it took 13 squarings of a D filling towards
/// 4000² / 2 entries (minutes) before saying so.
#[test]
fn apsp_negative_cycle_found_after_the_first_squaring() {
    let n = 4000;
    let (mut rows, mut cols, mut w) = (vec![1], vec![0], vec![-3.0]);
    for i in 0..n - 1 {
        rows.push(i as u32);
        cols.push(i as u32 + 1);
        w.push(1.0);
    }
    let g = Coo::try_new(n, n, rows, cols, w).unwrap().to_csr();
    for engine in ENGINES {
        let mut seen = Vec::new();
        let err = apsp_with_progress(&g, engine, &mut |p| seen.push(p.squaring))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("negative cycle: the distance from vertex 1 to itself is -2"),
            "{engine}: {err}"
        );
        assert_eq!(
            seen,
            [1],
            "{engine}: squarings before the cycle was reported"
        );
    }
}

/// Progress comes after each squaring that changed D, numbered from 1,
/// with the squarings expected (⌈log₂(n − 1)⌉ + 1) and D's entries so far
/// (growing, the last of them the closure's on the host engines).
#[test]
fn apsp_reports_each_squaring() {
    let g = generate::uniform(150, 150, 0, 3, 7)
        .unwrap()
        .map(|v| (v * 16.0).ceil());
    for engine in ENGINES {
        let mut seen: Vec<ApspProgress> = Vec::new();
        let done = apsp_squaring(&g, engine, &mut |p| seen.push(p)).unwrap();
        let squarings: Vec<usize> = seen.iter().map(|p| p.squaring).collect();
        assert_eq!(
            squarings,
            (1..done.squarings).collect::<Vec<_>>(),
            "{engine}"
        );
        assert!(seen.iter().all(|p| p.expected == 9), "{engine}: {seen:?}");
        let entries: Vec<usize> = seen.iter().filter_map(|p| p.entries).collect();
        if engine != Engine::Auto {
            assert_eq!(entries.len(), seen.len(), "{engine}: {seen:?}");
            assert_eq!(entries.last(), Some(&done.distances.nnz()), "{engine}");
        }
        assert!(entries.is_sorted(), "{engine}: {entries:?}");
    }
}

/// Marks the child process of [`apsp_identity_too_large_is_an_error`].
#[cfg(target_os = "linux")]
const TOO_LARGE_CHILD: &str = "SPMX_TEST_APSP_TOO_LARGE_CHILD";

/// A graph of 2²⁴ vertices and one edge, whose first distance matrix
/// (n + 1 row pointers, n diagonal entries: 335 MB) does not fit under an
/// address-space limit (`ulimit -v`) that holds the graph: an
/// `Error::TooLarge` naming the bytes, not an abort (it was "memory
/// allocation of 2400000008 bytes failed" for 3·10⁸ vertices under 4 GiB).
/// The limit is set in a child process running this test alone.
#[cfg(target_os = "linux")]
#[test]
fn apsp_identity_too_large_is_an_error() {
    if std::env::var_os(TOO_LARGE_CHILD).is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "apsp_identity_too_large_is_an_error",
                "--exact",
                "--nocapture",
            ])
            .args(["--test-threads", "1"])
            .env(TOO_LARGE_CHILD, "1")
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(out.status.success(), "{stdout}\n{stderr}");
        assert!(stdout.contains("1 passed"), "{stdout}");
        return;
    }
    let n = 1 << 24;
    let mut row_ptr = vec![1; n + 1];
    row_ptr[0] = 0;
    let g = Csr::try_new(n, n, row_ptr, vec![1], vec![1.0]).unwrap();
    // Room for what is mapped now, D₀'s row pointers and half its columns.
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let mapped_kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    let limit = mapped_kb * 1024 + (n as u64 + 1) * 8 + n as u64 * 2;
    // SAFETY: getrlimit and setrlimit read and write one `rlimit` each.
    unsafe {
        let mut rlimit = std::mem::zeroed::<libc::rlimit>();
        assert_eq!(libc::getrlimit(libc::RLIMIT_AS, &mut rlimit), 0);
        rlimit.rlim_cur = limit.min(rlimit.rlim_max);
        assert_eq!(libc::setrlimit(libc::RLIMIT_AS, &rlimit), 0);
    }
    let err = apsp_squaring(&g, Engine::Serial, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("too large: APSP distance") && err.contains("bytes"),
        "{err}"
    );
    // By Dijkstra (the sparse graph's method), one source's distances.
    let err = app::apsp(&g, Engine::Serial).unwrap_err().to_string();
    assert!(
        err.starts_with("too large: SSSP distance") && err.contains("bytes"),
        "{err}"
    );
}
