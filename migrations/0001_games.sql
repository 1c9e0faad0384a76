-- The game host's first schema (docs/host.md, "Storage"). Every change the
-- host makes is one transaction; a migration runs in one too, and sets
-- PRAGMA user_version to its number.

-- A hosted game: one scenario played Exchange by Exchange.
CREATE TABLE games (
    id TEXT PRIMARY KEY,              -- public id: 16 hex digits
    title TEXT NOT NULL,
    seed TEXT NOT NULL,               -- the battle seed, in digits (a u64)
    status TEXT NOT NULL CHECK (status IN ('signup', 'progress', 'completed')),
    deadline_seconds INTEGER,         -- NULL: resolve when every plot is in
    deadline_at INTEGER,              -- unix seconds; NULL when no clock runs
    exchange INTEGER NOT NULL,        -- the Exchange being plotted (or the last one, when completed)
    first_exchange INTEGER NOT NULL,
    start_mass TEXT NOT NULL,         -- JSON array: each side's starting mass
    opening TEXT NOT NULL,            -- JSON: ranges and Units before the first Exchange
    outcome TEXT,                     -- how the game ended, in words
    created_at INTEGER NOT NULL
);

-- The sides, and who commands each once signed up.
CREATE TABLE sides (
    game TEXT NOT NULL REFERENCES games (id),
    side INTEGER NOT NULL,
    name TEXT NOT NULL,
    commander TEXT,                   -- NULL until a commander signs up
    PRIMARY KEY (game, side)
);

-- Links: only the SHA-256 of each token is kept.
CREATE TABLE tokens (
    hash BLOB PRIMARY KEY,
    game TEXT NOT NULL REFERENCES games (id),
    side INTEGER,                     -- NULL: the referee
    revoked INTEGER NOT NULL DEFAULT 0
);

-- Each Exchange's turn directory as it stood before the Exchange resolved:
-- scenario, ship records, state, and each side's orders template (side set).
CREATE TABLE files (
    game TEXT NOT NULL REFERENCES games (id),
    exchange INTEGER NOT NULL,
    name TEXT NOT NULL,
    side INTEGER,
    bytes TEXT NOT NULL,
    PRIMARY KEY (game, exchange, name)
);

-- The plot each commander submitted for an Exchange (the latest one).
CREATE TABLE plots (
    game TEXT NOT NULL REFERENCES games (id),
    exchange INTEGER NOT NULL,
    side INTEGER NOT NULL,
    text TEXT NOT NULL,
    submitted_at INTEGER NOT NULL,
    PRIMARY KEY (game, exchange, side)
);

-- A resolved Exchange: what was played (each side's orders as used), and
-- what it gave.
CREATE TABLE turns (
    game TEXT NOT NULL REFERENCES games (id),
    exchange INTEGER NOT NULL,
    trigger TEXT NOT NULL,            -- 'all plots in', 'deadline', 'referee'
    orders TEXT NOT NULL,             -- JSON: [{side, name, text, submitted}]
    report TEXT NOT NULL,
    log TEXT NOT NULL,
    summary TEXT NOT NULL,            -- JSON: ranges and Units after it
    resolved_at INTEGER NOT NULL,
    PRIMARY KEY (game, exchange)
);
