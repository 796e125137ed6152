//! Generates the Tauri context; capabilities live at the repository root in `capabilities/`.

fn main() {
    println!("cargo:rerun-if-changed=../capabilities");
    println!("cargo:rerun-if-changed=../ui");
    let attributes =
        tauri_build::Attributes::new().capabilities_path_pattern("../capabilities/**/*");
    if let Err(error) = tauri_build::try_build(attributes) {
        panic!("tauri build step failed: {error:#}");
    }
}
