//! The game host (`fam serve --db PATH`, docs/host.md): whole play-by-web
//! games beside the odds calculator, kept in SQLite. A referee creates a game from a
//! scenario; each commander plots through a secret link; each Exchange is
//! resolved exactly once by [`crate::turn`], as `fam resolve` resolves it;
//! everything lives in one SQLite file.
//!
//! - [`store`]: the SQLite file, its migrations, one function per query.
//! - [`token`]: links' tokens and their hashes; game ids.
//! - [`game`]: the lifecycle; every change is one transaction.
//! - [`view`]: the public display, a battle's state, a side's form.
//! - [`feed`]: the Atom feed and the turn directory's archive.
//!
//! The HTTP endpoints, their rights and limits, are `serve::games`; the
//! host knows nothing of HTTP. Imports: `game` → `store`, `view`, `token`;
//! all of them → `turn`, `orders`, `engine`, `report`, `diag`, `library`.

pub mod feed;
pub mod game;
pub mod store;
pub mod token;
pub mod view;

pub use game::{Host, HostError};

/// Now, in unix seconds: when a plot came in, when a deadline falls. The
/// clock decides only when an Exchange resolves, never what it plays.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}
