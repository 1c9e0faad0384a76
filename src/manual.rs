//! Shell completions and man pages, both generated from the one `clap`
//! definition of the command line in [`crate::cli`], so they cannot fall
//! behind a new command or flag.
//!
//! * [`completions`]: a completion script for one shell (`clap_complete`).
//! * [`man_pages`]: one roff page for `fam` and one for each subcommand,
//!   named as `man` looks them up (`fam.1`, `fam-resolve.1`,
//!   `fam-ssd-show.1` …), with `clap_mangen`.

use std::path::Path;

use clap::Command;
use clap_complete::Shell;

use crate::files::Output;

/// The completion script for `shell`, for a command line named `bin`.
pub fn completions(mut command: Command, shell: Shell, bin: &str) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, bin, &mut script);
    script
}

/// The man page of `command` alone (section 1), as roff.
pub fn man_page(command: Command) -> std::io::Result<Vec<u8>> {
    let mut page = Vec::new();
    clap_mangen::Man::new(command).render(&mut page)?;
    Ok(page)
}

/// A man page for `command` and every subcommand under it, each an
/// [`Output`] in `dir` named `PARENT-SUB.1`. Subcommands are named by
/// their full path (`fam-ssd-show`), and their usage line says so.
pub fn man_pages(command: Command, dir: &Path) -> std::io::Result<Vec<Output>> {
    let mut command = command;
    command.build();
    let mut pages = Vec::new();
    collect(command, dir, &mut pages)?;
    Ok(pages)
}

fn collect(command: Command, dir: &Path, pages: &mut Vec<Output>) -> std::io::Result<()> {
    let name = command.get_name().to_owned();
    let subcommands: Vec<Command> = command
        .get_subcommands()
        .filter(|sub| sub.get_name() != "help")
        .cloned()
        .collect();
    pages.push(Output::new(dir.join(format!("{name}.1")), man_page(command)?));
    for sub in subcommands {
        let full = format!("{name}-{}", sub.get_name());
        let bin = full.replace('-', " ");
        collect(sub.name(full).bin_name(bin), dir, pages)?;
    }
    Ok(())
}
