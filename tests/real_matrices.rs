//! Reads every real-world matrix in `../shared/bench-data/real` (or
//! `$SPMX_REAL_DATA`) and checks it against that folder's `MANIFEST.tsv`:
//! shape, declared and expanded entry counts, symmetry, field and row
//! statistics. Skips, saying why, when the folder is absent.

mod common;

use std::collections::HashMap;

use spmx::io::{ReadOptions, read_mtx};

/// `MANIFEST.tsv` as one map (column name → value) per matrix.
fn manifest(text: &str) -> Vec<HashMap<&str, &str>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let names: Vec<&str> = lines
        .next()
        .expect("MANIFEST.tsv is empty")
        .split('\t')
        .collect();
    lines
        .map(|line| {
            let values: Vec<&str> = line.split('\t').collect();
            assert_eq!(values.len(), names.len(), "MANIFEST.tsv row: {line}");
            names.iter().copied().zip(values).collect()
        })
        .collect()
}

#[test]
fn real_matrices_match_the_manifest() {
    let dir = common::real_data_dir();
    let Ok(text) = std::fs::read_to_string(dir.join("MANIFEST.tsv")) else {
        println!(
            "skipping: no MANIFEST.tsv in {} (set SPMX_REAL_DATA to the real-matrix folder)",
            dir.display()
        );
        return;
    };
    let rows = manifest(&text);
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".mtx") || n.ends_with(".mtx.gz"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = rows.iter().map(|r| r["file"].to_string()).collect();
    listed.sort();
    assert_eq!(
        listed, on_disk,
        "MANIFEST.tsv and the folder list different files"
    );

    for row in &rows {
        let file = row["file"];
        let num = |col: &str| -> usize {
            row[col]
                .parse()
                .unwrap_or_else(|e| panic!("{file}: {col} = {:?}: {e}", row[col]))
        };
        let m = read_mtx::<f64>(&dir.join(file), &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let h = m.header;
        let csr = m.coo.to_csr();
        let stats = csr.row_stats();
        let explicit_zeros = csr.values().iter().filter(|&&v| v == 0.0).count();
        let got = (
            (h.nrows, h.ncols),
            h.declared_entries,
            csr.nnz(),
            h.symmetry.to_string(),
            h.field.to_string(),
            stats.max,
            format!("{:.2}", stats.mean),
            stats.empty_rows,
            explicit_zeros,
        );
        let want = (
            (num("rows"), num("cols")),
            num("nnz"),
            num("nnz_expanded"),
            row["symmetry"].to_string(),
            row["field"].to_string(),
            num("max_row_len"),
            row["mean_row_len"].to_string(),
            num("empty_rows"),
            num("explicit_zeros"),
        );
        assert_eq!(
            got, want,
            "{file}: (shape, nnz, nnz_expanded, symmetry, field, max_row_len, mean_row_len, empty_rows, explicit_zeros)"
        );
        assert_eq!(m.dropped, 0);
    }
    println!(
        "{} matrices match {}",
        rows.len(),
        dir.join("MANIFEST.tsv").display()
    );
}
