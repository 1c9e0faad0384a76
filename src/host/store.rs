//! The game host's storage: one SQLite file (WAL, synchronous writes),
//! its schema from the versioned migrations in `migrations/`, and one
//! function per question or change. Callers make the transactions
//! ([`super::game`]): every change of a game is one.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, params};

/// The migrations, in order: the schema after the k-th is version k
/// (`PRAGMA user_version`).
const MIGRATIONS: &[&str] = &[include_str!("../../migrations/0001_games.sql")];

/// Why the store cannot be used.
#[derive(Debug)]
pub enum StoreError {
    /// SQLite refused (the file, a statement, a constraint).
    Sqlite(rusqlite::Error),
    /// The database was made by a newer fam (its schema version).
    Newer(u32),
    /// A stored value fam cannot read back (the file was edited).
    Corrupt(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Sqlite(e) => write!(f, "the game database: {e}"),
            StoreError::Newer(v) => write!(
                f,
                "the game database has schema version {v}, newer than this fam knows ({}); use a newer fam",
                MIGRATIONS.len()
            ),
            StoreError::Corrupt(what) => write!(f, "the game database holds {what}, which fam did not write"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> StoreError {
        StoreError::Sqlite(e)
    }
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// Opens (or makes) the database at `path`: WAL, every commit synced, and
/// the schema brought up to date, each migration in its own transaction.
pub fn open(path: &Path) -> Result<Connection> {
    let mut conn = Connection::open(path)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Corrupt(format!("a journal mode of `{mode}`")));
    }
    conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    migrate(&mut conn)?;
    Ok(conn)
}

/// Applies the migrations the file lacks.
fn migrate(conn: &mut Connection) -> Result<()> {
    let version: u32 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version as usize > MIGRATIONS.len() {
        return Err(StoreError::Newer(version));
    }
    for (k, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Exclusive)?;
        tx.execute_batch(sql)?;
        tx.execute_batch(&format!("PRAGMA user_version = {}", k + 1))?;
        tx.commit()?;
    }
    Ok(())
}

/// Where a game is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Waiting for a commander on some side.
    Signup,
    /// Exchanges are being plotted and resolved.
    Progress,
    /// Decided by `[victory]`, or ended by the referee.
    Completed,
}

impl Status {
    pub fn key(self) -> &'static str {
        match self {
            Status::Signup => "signup",
            Status::Progress => "progress",
            Status::Completed => "completed",
        }
    }

    fn from_key(key: &str) -> Result<Status> {
        match key {
            "signup" => Ok(Status::Signup),
            "progress" => Ok(Status::Progress),
            "completed" => Ok(Status::Completed),
            other => Err(StoreError::Corrupt(format!("a game status `{other}`"))),
        }
    }
}

/// One game's row.
#[derive(Debug, Clone)]
pub struct Game {
    pub id: String,
    pub title: String,
    pub seed: u64,
    pub status: Status,
    /// Seconds a commander has to plot an Exchange; `None`: until every
    /// plot is in.
    pub deadline_seconds: Option<u64>,
    /// When the running Exchange resolves with what is in (unix seconds).
    pub deadline_at: Option<i64>,
    /// The Exchange being plotted (the last one played, once completed).
    pub exchange: u32,
    pub first_exchange: u32,
    pub start_mass: Vec<u32>,
    /// JSON: the battle before the first Exchange ([`super::view::Summary`]).
    pub opening: String,
    pub outcome: Option<String>,
    pub created_at: i64,
}

/// A new game's row.
pub fn insert_game(conn: &Connection, g: &Game) -> Result<()> {
    let mass = serde_json::to_string(&g.start_mass).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    conn.execute(
        "INSERT INTO games (id, title, seed, status, deadline_seconds, deadline_at, exchange,
             first_exchange, start_mass, opening, outcome, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        params![
            g.id,
            g.title,
            g.seed.to_string(),
            g.status.key(),
            g.deadline_seconds.map(|s| s as i64),
            g.deadline_at,
            g.exchange,
            g.first_exchange,
            mass,
            g.opening,
            g.outcome,
            g.created_at
        ],
    )?;
    Ok(())
}

/// The game with this id.
pub fn game(conn: &Connection, id: &str) -> Result<Option<Game>> {
    let row = conn
        .query_row(
            "SELECT id, title, seed, status, deadline_seconds, deadline_at, exchange, first_exchange,
                 start_mass, opening, outcome, created_at FROM games WHERE id = ?1",
            [id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, Option<i64>>(4)?,
                    r.get::<_, Option<i64>>(5)?,
                    r.get::<_, u32>(6)?,
                    r.get::<_, u32>(7)?,
                    r.get::<_, String>(8)?,
                    r.get::<_, String>(9)?,
                    r.get::<_, Option<String>>(10)?,
                    r.get::<_, i64>(11)?,
                ))
            },
        )
        .optional()?;
    let Some((
        id,
        title,
        seed,
        status,
        deadline_seconds,
        deadline_at,
        exchange,
        first,
        mass,
        opening,
        outcome,
        created,
    )) = row
    else {
        return Ok(None);
    };
    Ok(Some(Game {
        id,
        title,
        seed: seed
            .parse()
            .map_err(|_| StoreError::Corrupt(format!("a seed `{seed}`")))?,
        status: Status::from_key(&status)?,
        deadline_seconds: deadline_seconds.map(|s| s.max(0) as u64),
        deadline_at,
        exchange,
        first_exchange: first,
        start_mass: serde_json::from_str(&mass).map_err(|_| StoreError::Corrupt(format!("a start mass `{mass}`")))?,
        opening,
        outcome,
        created_at: created,
    }))
}

/// The games in progress whose deadline has passed at `now`, or, when
/// `complete` (at start-up), every game in progress: the caller resolves
/// those whose plots are all in.
pub fn games_due(conn: &Connection, now: i64, complete: bool) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT id FROM games WHERE status = 'progress'
             AND (?2 OR (deadline_at IS NOT NULL AND deadline_at <= ?1)) ORDER BY id",
    )?;
    let ids = stmt
        .query_map(params![now, complete], |r| r.get::<_, String>(0))?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(ids)
}

/// How many games are stored (the host's bound on new ones).
pub fn game_count(conn: &Connection) -> Result<u64> {
    Ok(conn.query_row("SELECT count(*) FROM games", [], |r| r.get::<_, i64>(0))? as u64)
}

/// Moves a game on: its status, Exchange, deadline and outcome.
pub fn update_game(conn: &Connection, g: &Game) -> Result<()> {
    conn.execute(
        "UPDATE games SET status = ?2, exchange = ?3, deadline_at = ?4, outcome = ?5 WHERE id = ?1",
        params![g.id, g.status.key(), g.exchange, g.deadline_at, g.outcome],
    )?;
    Ok(())
}

/// One side of a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    pub side: usize,
    pub name: String,
    /// The commander's name, once signed up.
    pub commander: Option<String>,
}

pub fn insert_side(conn: &Connection, game: &str, s: &Side) -> Result<()> {
    conn.execute(
        "INSERT INTO sides (game, side, name, commander) VALUES (?1, ?2, ?3, ?4)",
        params![game, s.side as i64, s.name, s.commander],
    )?;
    Ok(())
}

pub fn sides(conn: &Connection, game: &str) -> Result<Vec<Side>> {
    let mut stmt = conn.prepare("SELECT side, name, commander FROM sides WHERE game = ?1 ORDER BY side")?;
    let rows = stmt
        .query_map([game], |r| {
            Ok(Side {
                side: r.get::<_, i64>(0)? as usize,
                name: r.get(1)?,
                commander: r.get(2)?,
            })
        })?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn set_commander(conn: &Connection, game: &str, side: usize, name: &str) -> Result<()> {
    conn.execute(
        "UPDATE sides SET commander = ?3 WHERE game = ?1 AND side = ?2",
        params![game, side as i64, name],
    )?;
    Ok(())
}

/// Who a token speaks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub game: String,
    /// `None`: the referee.
    pub side: Option<usize>,
    pub revoked: bool,
}

pub fn insert_token(conn: &Connection, hash: &[u8], game: &str, side: Option<usize>) -> Result<()> {
    conn.execute(
        "INSERT INTO tokens (hash, game, side) VALUES (?1, ?2, ?3)",
        params![hash, game, side.map(|s| s as i64)],
    )?;
    Ok(())
}

/// The holder of the token with this hash, revoked or not.
pub fn holder(conn: &Connection, hash: &[u8]) -> Result<Option<Holder>> {
    Ok(conn
        .query_row("SELECT game, side, revoked FROM tokens WHERE hash = ?1", [hash], |r| {
            Ok(Holder {
                game: r.get(0)?,
                side: r.get::<_, Option<i64>>(1)?.map(|s| s as usize),
                revoked: r.get::<_, i64>(2)? != 0,
            })
        })
        .optional()?)
}

/// Revokes every link of one commander of a game.
pub fn revoke_side(conn: &Connection, game: &str, side: usize) -> Result<()> {
    conn.execute(
        "UPDATE tokens SET revoked = 1 WHERE game = ?1 AND side = ?2",
        params![game, side as i64],
    )?;
    Ok(())
}

/// A file of a turn directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub name: String,
    /// The side whose orders template this is.
    pub side: Option<usize>,
    pub bytes: String,
}

pub fn insert_file(conn: &Connection, game: &str, exchange: u32, f: &File) -> Result<()> {
    conn.execute(
        "INSERT INTO files (game, exchange, name, side, bytes) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![game, exchange, f.name, f.side.map(|s| s as i64), f.bytes],
    )?;
    Ok(())
}

/// The files of Exchange `exchange`'s turn directory, by name.
pub fn files(conn: &Connection, game: &str, exchange: u32) -> Result<Vec<File>> {
    let mut stmt =
        conn.prepare("SELECT name, side, bytes FROM files WHERE game = ?1 AND exchange = ?2 ORDER BY name")?;
    let rows = stmt
        .query_map(params![game, exchange], |r| {
            Ok(File {
                name: r.get(0)?,
                side: r.get::<_, Option<i64>>(1)?.map(|s| s as usize),
                bytes: r.get(2)?,
            })
        })?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// A submitted plot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plot {
    pub side: usize,
    pub text: String,
    pub submitted_at: i64,
}

/// Keeps a side's plot for an Exchange, replacing any earlier one.
pub fn put_plot(conn: &Connection, game: &str, exchange: u32, p: &Plot) -> Result<()> {
    conn.execute(
        "INSERT INTO plots (game, exchange, side, text, submitted_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (game, exchange, side) DO UPDATE SET text = excluded.text, submitted_at = excluded.submitted_at",
        params![game, exchange, p.side as i64, p.text, p.submitted_at],
    )?;
    Ok(())
}

/// The plots submitted for an Exchange, by side.
pub fn plots(conn: &Connection, game: &str, exchange: u32) -> Result<Vec<Plot>> {
    let mut stmt =
        conn.prepare("SELECT side, text, submitted_at FROM plots WHERE game = ?1 AND exchange = ?2 ORDER BY side")?;
    let rows = stmt
        .query_map(params![game, exchange], |r| {
            Ok(Plot {
                side: r.get::<_, i64>(0)? as usize,
                text: r.get(1)?,
                submitted_at: r.get(2)?,
            })
        })?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// A resolved Exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub exchange: u32,
    /// What resolved it: `all plots in`, `deadline` or `referee`.
    pub trigger: String,
    /// JSON: each side's orders as played.
    pub orders: String,
    pub report: String,
    pub log: String,
    /// JSON: ranges and Units after it ([`super::view::Summary`]).
    pub summary: String,
    pub resolved_at: i64,
}

/// Records a resolved Exchange; a second record of one fails (the primary
/// key), so an Exchange is resolved at most once whatever the callers do.
pub fn insert_turn(conn: &Connection, game: &str, t: &Turn) -> Result<()> {
    conn.execute(
        "INSERT INTO turns (game, exchange, trigger, orders, report, log, summary, resolved_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            game,
            t.exchange,
            t.trigger,
            t.orders,
            t.report,
            t.log,
            t.summary,
            t.resolved_at
        ],
    )?;
    Ok(())
}

/// The resolved Exchanges of a game, in order, without their event logs
/// (`log` empty: [`turn`] has it).
pub fn turns(conn: &Connection, game: &str) -> Result<Vec<Turn>> {
    let mut stmt = conn.prepare(
        "SELECT exchange, trigger, orders, report, '', summary, resolved_at FROM turns
             WHERE game = ?1 ORDER BY exchange",
    )?;
    let rows = stmt
        .query_map([game], turn_row)?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// One resolved Exchange, with its event log.
pub fn turn(conn: &Connection, game: &str, exchange: u32) -> Result<Option<Turn>> {
    Ok(conn
        .query_row(
            "SELECT exchange, trigger, orders, report, log, summary, resolved_at FROM turns
                 WHERE game = ?1 AND exchange = ?2",
            params![game, exchange],
            turn_row,
        )
        .optional()?)
}

fn turn_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Turn> {
    Ok(Turn {
        exchange: r.get(0)?,
        trigger: r.get(1)?,
        orders: r.get(2)?,
        report: r.get(3)?,
        log: r.get(4)?,
        summary: r.get(5)?,
        resolved_at: r.get(6)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_gets_the_schema_and_a_newer_one_is_refused_unchanged() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().join("games.db");
        let conn = open(&path).expect("made");
        let version: u32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("a version");
        assert_eq!(version as usize, MIGRATIONS.len());
        let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).expect("a mode");
        assert_eq!(mode, "wal");
        assert_eq!(game_count(&conn).expect("a count"), 0);
        drop(conn);
        // Opening again migrates nothing and keeps what is there.
        let conn = open(&path).expect("opened again");
        conn.execute_batch("PRAGMA user_version = 99").expect("set");
        drop(conn);
        match open(&path) {
            Err(StoreError::Newer(99)) => {}
            other => panic!("{other:?}"),
        }
        let conn = Connection::open(&path).expect("plain open");
        let version: u32 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .expect("a version");
        assert_eq!(version, 99, "the newer file is left as it was");
    }
}
