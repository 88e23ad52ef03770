//! Build script. With feature `gpu` it will compile `gpu-kernels` to PTX
//! (see ARCHITECTURE.md); without it there is nothing to build.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
}
