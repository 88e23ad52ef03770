//! Benchmark inputs: the named suites kept as text in `bench-data/*.suite`
//! and embedded in the binary (a bench runs on a GPU machine from a bundle
//! folder, without the repository), the real matrices beside the
//! repository, and files named on the command line.
//!
//! A suite file has one matrix a line, `#` starting a comment:
//!
//! ```text
//! NAME GENERATOR key=value ...   a generated matrix: spmx::generate + a seed
//! real                           every matrix of the real set (see real_dir)
//! ```
//!
//! | generator   | keys (default)                                       |
//! |-------------|------------------------------------------------------|
//! | `uniform`   | `rows`, `cols` (= rows), `min`, `max`, `seed` (1)     |
//! | `power-law` | `rows`, `cols` (= rows), `mean`, `exponent`, `seed` (1) |
//! | `rmat`      | `scale`, `edge-factor`, `a`, `b`, `c`, `seed` (1)     |
//! | `banded`    | `n`, `lower`, `upper`, `seed` (1)                     |
//! | `poisson2d`, `poisson3d` | `n`                                     |
//!
//! Integers may use `_` between digits (`rows=4_194_304`). An unknown
//! generator or key, a missing key or a malformed number is an error naming
//! the suite file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::report::CaseId;
use spmx::error::{Error, Result};
use spmx::format::Csr;
use spmx::generate::{GenSpec, RmatParams};
use spmx::io::{ReadOptions, read_mtx};

/// The suites built into spmx: name and the text of `bench-data/NAME.suite`.
pub const SUITES: &[(&str, &str)] = &[
    (
        "gpu-default",
        include_str!("../../bench-data/gpu-default.suite"),
    ),
    ("gnn", include_str!("../../bench-data/gnn.suite")),
    ("spgemm", include_str!("../../bench-data/spgemm.suite")),
    ("validate", include_str!("../../bench-data/validate.suite")),
];

/// The suite selection rules are scored on and never tuned on: its
/// geomeans are reported apart from the others' ([`Input::set`]).
pub const VALIDATE: &str = "validate";

/// Environment variable naming the folder of the real matrices.
pub const REAL_DATA_ENV: &str = "SPMX_REAL_DATA";

/// A parsed suite.
#[derive(Clone, Debug, PartialEq)]
pub struct Suite {
    pub name: String,
    pub entries: Vec<Entry>,
}

/// One line of a suite.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A generated matrix.
    Generated {
        name: String,
        spec: GenSpec,
        seed: u64,
    },
    /// Every matrix of the real set.
    RealSet,
}

/// One input matrix of a bench run, not yet loaded.
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// Short name for tables and charts (`rmat22`, `bcsstk13`).
    pub name: String,
    pub source: Source,
    /// The suite it came from; `None` for a file named on the command line.
    pub suite: Option<String>,
}

/// Where an input comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Generated { spec: GenSpec, seed: u64 },
    File { path: PathBuf, options: ReadOptions },
}

impl Suite {
    /// The built-in suite `name`, parsed; an unknown name is an error
    /// listing the known ones.
    pub fn named(name: &str) -> Result<Suite> {
        let (_, text) = SUITES.iter().find(|(n, _)| *n == name).ok_or_else(|| {
            let known: Vec<_> = SUITES.iter().map(|(n, _)| *n).collect();
            Error::invalid(
                "bench suite",
                format!("no suite {name:?}; built in: {}", known.join(", ")),
            )
        })?;
        Suite::parse(name, text)
    }

    /// Parses the text of `bench-data/NAME.suite`.
    pub fn parse(name: &str, text: &str) -> Result<Suite> {
        let file = format!("bench-data/{name}.suite");
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let entry = parse_entry(line).map_err(|reason| Error::Parse {
                file: file.clone(),
                line: i as u64 + 1,
                reason,
            })?;
            entries.push(entry);
        }
        Ok(Suite {
            name: name.to_string(),
            entries,
        })
    }

    /// The suite's inputs, with the real set expanded from `real_dir`. A
    /// missing real set is left out, with a note saying so among the
    /// returned notes.
    pub fn inputs(&self, real_dir: &Path) -> Result<(Vec<Input>, Vec<String>)> {
        let (mut inputs, mut notes) = (Vec::new(), Vec::new());
        for entry in &self.entries {
            match entry {
                Entry::Generated { name, spec, seed } => inputs.push(Input {
                    name: name.clone(),
                    source: Source::Generated {
                        spec: spec.clone(),
                        seed: *seed,
                    },
                    suite: Some(self.name.clone()),
                }),
                Entry::RealSet => match real_set(real_dir)? {
                    Some(real) => inputs.extend(real.into_iter().map(|input| Input {
                        suite: Some(self.name.clone()),
                        ..input
                    })),
                    None => notes.push(format!(
                        "skipping the real matrices: no folder {} (set {REAL_DATA_ENV})",
                        real_dir.display()
                    )),
                },
            }
        }
        Ok((inputs, notes))
    }
}

impl Input {
    /// A MatrixMarket file named on the command line, named by its stem.
    pub fn file(path: &Path, options: ReadOptions) -> Input {
        Input {
            name: matrix_name(path),
            source: Source::File {
                path: path.to_path_buf(),
                options,
            },
            suite: None,
        }
    }

    /// Its name, source and set, for a race's report.
    pub fn case_id(&self) -> CaseId {
        CaseId {
            name: self.name.clone(),
            source: self.describe(),
            set: self.set().into(),
        }
    }

    /// Which set its ratios are summarized in: `validate` for the validate
    /// suite, `tune` for the suites rules are set on, `files` for files
    /// named on the command line.
    pub fn set(&self) -> &'static str {
        match self.suite.as_deref() {
            Some(VALIDATE) => "validate",
            Some(_) => "tune",
            None => "files",
        }
    }

    /// Generates or reads the matrix.
    pub fn load(&self) -> Result<Csr<f64>> {
        match &self.source {
            Source::Generated { spec, seed } => spec.generate(*seed),
            Source::File { path, options } => read_mtx::<f64>(path, options)?.coo.try_to_csr(),
        }
    }

    /// Where the matrix comes from, in words.
    pub fn describe(&self) -> String {
        match &self.source {
            Source::Generated { spec, seed } => match spec {
                GenSpec::Poisson2d { .. } | GenSpec::Poisson3d { .. } => spec.describe(),
                _ => format!("{}, seed {seed}", spec.describe()),
            },
            Source::File { path, .. } => path.display().to_string(),
        }
    }
}

/// The folder of the real matrices: `$SPMX_REAL_DATA`, else
/// `../shared/bench-data/real` beside the repository spmx was built from
/// (the folder the library's tests read too).
pub fn real_dir() -> PathBuf {
    std::env::var_os(REAL_DATA_ENV).map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/bench-data/real"),
        PathBuf::from,
    )
}

/// Every `.mtx` and `.mtx.gz` file in `dir`, by name, except those that
/// `MANIFEST.tsv` there marks with kind `toy`; `None` if `dir` is absent.
fn real_set(dir: &Path) -> Result<Option<Vec<Input>>> {
    let Ok(listing) = std::fs::read_dir(dir) else {
        return Ok(None);
    };
    let io_err = |source| Error::Io {
        path: dir.to_path_buf(),
        source,
    };
    let manifest = std::fs::read_to_string(dir.join("MANIFEST.tsv")).unwrap_or_default();
    let toy = |file: &str| {
        manifest.lines().any(|l| {
            let mut cols = l.split('\t');
            cols.next() == Some(file) && cols.any(|c| c == "toy")
        })
    };
    let mut files = Vec::new();
    for entry in listing {
        let file = entry.map_err(io_err)?.file_name();
        let file = file.to_string_lossy();
        if (file.ends_with(".mtx") || file.ends_with(".mtx.gz")) && !toy(&file) {
            files.push(dir.join(&*file));
        }
    }
    files.sort();
    Ok(Some(
        files
            .iter()
            .map(|path| Input::file(path, ReadOptions::default()))
            .collect(),
    ))
}

/// `bcsstk13` for `…/bcsstk13.mtx.gz`.
fn matrix_name(path: &Path) -> String {
    let file = path.file_name().unwrap_or_default().to_string_lossy();
    let name = file.strip_suffix(".gz").unwrap_or(&file);
    name.strip_suffix(".mtx").unwrap_or(name).to_string()
}

/// One non-empty suite line, without its comment.
fn parse_entry(line: &str) -> std::result::Result<Entry, String> {
    let mut words = line.split_whitespace();
    let name = words.next().unwrap_or_default();
    if name == "real" {
        return match words.next() {
            None => Ok(Entry::RealSet),
            Some(w) => Err(format!("`real` takes no arguments, got {w:?}")),
        };
    }
    let generator = words
        .next()
        .ok_or_else(|| format!("{name}: expected `NAME GENERATOR key=value ...`"))?;
    let mut keys = Keys::parse(words)?;
    let seed = keys.optional("seed", 1)?;
    let spec = match generator {
        "uniform" => {
            let rows = keys.required("rows")?;
            GenSpec::Uniform {
                nrows: rows,
                ncols: keys.optional("cols", rows)?,
                min_per_row: keys.required("min")?,
                max_per_row: keys.required("max")?,
            }
        }
        "power-law" => {
            let rows = keys.required("rows")?;
            GenSpec::PowerLaw {
                nrows: rows,
                ncols: keys.optional("cols", rows)?,
                mean_row_len: keys.required("mean")?,
                exponent: keys.required("exponent")?,
            }
        }
        "rmat" => GenSpec::Rmat(RmatParams {
            scale: keys.required("scale")?,
            edge_factor: keys.required("edge-factor")?,
            a: keys.required("a")?,
            b: keys.required("b")?,
            c: keys.required("c")?,
        }),
        "banded" => GenSpec::Banded {
            n: keys.required("n")?,
            lower: keys.required("lower")?,
            upper: keys.required("upper")?,
        },
        "poisson2d" => GenSpec::Poisson2d {
            n: keys.required("n")?,
        },
        "poisson3d" => GenSpec::Poisson3d {
            n: keys.required("n")?,
        },
        other => {
            return Err(format!(
                "{name}: unknown generator {other:?}; expected uniform, power-law, rmat, \
                 banded, poisson2d or poisson3d"
            ));
        }
    };
    keys.finish(generator)?;
    Ok(Entry::Generated {
        name: name.to_string(),
        spec,
        seed,
    })
}

/// The `key=value` words of a line, consumed as the generator asks for them.
struct Keys(BTreeMap<String, String>);

impl Keys {
    fn parse<'a>(words: impl Iterator<Item = &'a str>) -> std::result::Result<Keys, String> {
        let mut map = BTreeMap::new();
        for word in words {
            let (key, value) = word
                .split_once('=')
                .ok_or_else(|| format!("expected key=value, got {word:?}"))?;
            if map.insert(key.to_string(), value.to_string()).is_some() {
                return Err(format!("{key} given twice"));
            }
        }
        Ok(Keys(map))
    }

    fn required<T: std::str::FromStr>(&mut self, key: &str) -> std::result::Result<T, String> {
        let value = self
            .0
            .remove(key)
            .ok_or_else(|| format!("missing {key}="))?;
        value
            .replace('_', "")
            .parse()
            .map_err(|_| format!("{key}={value}: not a valid number"))
    }

    fn optional<T: std::str::FromStr>(
        &mut self,
        key: &str,
        default: T,
    ) -> std::result::Result<T, String> {
        match self.0.contains_key(key) {
            true => self.required(key),
            false => Ok(default),
        }
    }

    /// Fails on any key the generator did not take.
    fn finish(self, generator: &str) -> std::result::Result<(), String> {
        match self.0.keys().next() {
            Some(key) => Err(format!("{generator} takes no key {key:?}")),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_default_parses_to_the_standard_inputs() {
        let suite = Suite::named("gpu-default").unwrap();
        let names: Vec<_> = suite
            .entries
            .iter()
            .map(|e| match e {
                Entry::Generated { name, .. } => name.as_str(),
                Entry::RealSet => "real",
            })
            .collect();
        assert_eq!(
            names,
            [
                "uniform-4M",
                "uniform-3M-short",
                "rmat22",
                "poisson2d-2000",
                "poisson3d-160",
                "banded-2500K-9",
                "banded-1500K-21",
                "banded-400K-61",
                "real"
            ]
        );
        assert_eq!(
            suite.entries[0],
            Entry::Generated {
                name: "uniform-4M".into(),
                spec: GenSpec::Uniform {
                    nrows: 1 << 22,
                    ncols: 1 << 22,
                    min_per_row: 8,
                    max_per_row: 56
                },
                seed: 1
            }
        );
        assert_eq!(
            suite.entries[2],
            Entry::Generated {
                name: "rmat22".into(),
                spec: GenSpec::Rmat(RmatParams::graph500(22)),
                seed: 1
            }
        );
    }

    #[test]
    fn gnn_parses_to_rmat_and_power_law_graphs() {
        let suite = Suite::named("gnn").unwrap();
        let names: Vec<_> = suite
            .entries
            .iter()
            .map(|e| match e {
                Entry::Generated { name, .. } => name.as_str(),
                Entry::RealSet => "real",
            })
            .collect();
        assert_eq!(
            names,
            [
                "rmat18",
                "rmat20",
                "powerlaw-256K",
                "powerlaw-1M",
                "powerlaw-4M"
            ]
        );
        assert_eq!(
            suite.entries[0],
            Entry::Generated {
                name: "rmat18".into(),
                spec: GenSpec::Rmat(RmatParams::graph500(18)),
                seed: 1
            }
        );
        assert_eq!(
            suite.entries[3],
            Entry::Generated {
                name: "powerlaw-1M".into(),
                spec: GenSpec::PowerLaw {
                    nrows: 1 << 20,
                    ncols: 1 << 20,
                    mean_row_len: 16.0,
                    exponent: 2.5
                },
                seed: 1
            }
        );
    }

    /// The entries `spec` generates: expected (uniform, power-law) or at
    /// most (R-MAT stores each distinct edge once).
    fn entries_of(spec: &GenSpec) -> f64 {
        match *spec {
            GenSpec::Uniform {
                nrows,
                min_per_row,
                max_per_row,
                ..
            } => nrows as f64 * (min_per_row + max_per_row) as f64 / 2.0,
            GenSpec::Rmat(RmatParams {
                scale, edge_factor, ..
            }) => edge_factor as f64 * 2f64.powi(scale as i32),
            GenSpec::Poisson2d { n } => 5.0 * (n as f64).powi(2),
            GenSpec::Poisson3d { n } => 7.0 * (n as f64).powi(3),
            GenSpec::Banded { n, lower, upper } => n as f64 * (lower + upper + 1) as f64,
            GenSpec::PowerLaw {
                nrows,
                mean_row_len,
                ..
            } => nrows as f64 * mean_row_len,
        }
    }

    #[test]
    fn every_built_in_suite_parses_to_matrices_a_bench_can_hold() {
        for (suite, _) in SUITES {
            // SpGEMM's work grows with the products, not the entries: its
            // R-MAT 14 (260K entries) makes 53M.
            let least = if *suite == "spgemm" { 2e5 } else { 1e6 };
            let parsed = Suite::named(suite).unwrap();
            assert!(!parsed.entries.is_empty(), "suite {suite} is empty");
            for entry in &parsed.entries {
                if let Entry::Generated { name, spec, .. } = entry {
                    let entries = entries_of(spec);
                    assert!(
                        (least..=150e6).contains(&entries),
                        "{suite}: {name} has about {entries:.3e} entries"
                    );
                }
            }
        }
    }

    #[test]
    fn a_small_suite_generates_what_it_says() {
        let suite = Suite::parse(
            "small",
            "# comment\nu uniform rows=1_000 cols=500 min=2 max=4 seed=7 # tail\n\
             r rmat scale=8 edge-factor=4 a=0.57 b=0.19 c=0.19\np poisson3d n=5\n",
        )
        .unwrap();
        let (inputs, notes) = suite.inputs(Path::new("/nonexistent")).unwrap();
        assert!(notes.is_empty());
        let shapes: Vec<_> = inputs.iter().map(|i| i.load().unwrap().shape()).collect();
        assert_eq!(shapes, [(1000, 500), (256, 256), (125, 125)]);
        let u = inputs[0].load().unwrap();
        assert!((2000..=4000).contains(&u.nnz()));
        assert_eq!(u, inputs[0].load().unwrap(), "same seed, same matrix");
        assert_eq!(
            inputs[0].describe(),
            "uniform random 1000×500, 2–4 entries per row, seed 7"
        );
    }

    #[test]
    fn bad_lines_name_the_line_and_the_reason() {
        let err = |text: &str| Suite::parse("t", text).unwrap_err().to_string();
        assert_eq!(
            err("\nx uniform rows=10 min=1\n"),
            "bench-data/t.suite:2: missing max="
        );
        assert!(err("x cube n=3").contains("unknown generator \"cube\""));
        assert!(err("x poisson2d n=3 m=4").contains("poisson2d takes no key \"m\""));
        assert!(err("x poisson2d n=three").contains("n=three: not a valid number"));
        assert!(err("x poisson2d n").contains("expected key=value"));
        assert!(err("real extra").contains("takes no arguments"));
        assert!(
            Suite::named("nope")
                .unwrap_err()
                .to_string()
                .contains("built in: gpu-default, gnn")
        );
    }

    #[test]
    fn real_set_lists_matrices_but_not_toys() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["b.mtx.gz", "a.mtx", "toy.mtx.gz", "notes.txt"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        std::fs::write(
            dir.path().join("MANIFEST.tsv"),
            "file\tkind\ntoy.mtx.gz\ttoy\na.mtx\tgraph\n",
        )
        .unwrap();
        let suite = Suite::parse("t", "real").unwrap();
        let (inputs, notes) = suite.inputs(dir.path()).unwrap();
        let names: Vec<_> = inputs.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
        assert!(notes.is_empty());
        let (inputs, notes) = suite.inputs(&dir.path().join("missing")).unwrap();
        assert!(inputs.is_empty());
        assert!(notes[0].starts_with("skipping the real matrices: no folder"));
    }
}
