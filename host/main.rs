//! The `spmx` command line.
fn main() {}
