//! The `fam` command: a thin shell over `fam::cli`.

fn main() -> std::process::ExitCode {
    fam::cli::main()
}
