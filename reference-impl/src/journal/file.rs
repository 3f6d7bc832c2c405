//! The data file: an SQLite database the sandbox alone holds (an
//! exclusive lock for as long as it runs), in write-ahead-log mode, marked
//! as ours (`application_id`) with the version of its tables
//! (`user_version`). A file that is not a database, is another program's,
//! is held by another sandbox or was written by a newer version is refused
//! with a message that says which; the sandbox never starts empty over it.
//! A file of an older version is brought up to this one in one
//! transaction ([`MIGRATIONS`]), keeping everything it holds.
//!
//! It holds the merchants' secrets (signing secrets as they are, API keys
//! and passwords digested and hashed, see `secrets`), so it is created
//! readable by its owner only (0600), and a file others can read or write
//! is refused, naming its mode; what a change overwrites is zeroed on disk
//! (`secure_delete`).

use std::path::Path;

use rusqlite::{Connection, ErrorCode, OpenFlags};

/// `application_id` of a sandbox's data file: "pcnf".
const APPLICATION_ID: i32 = 0x7063_6e66;
/// The version of the tables this sandbox writes and reads.
pub const SCHEMA_VERSION: i32 = 5;

/// What takes a file of each older version to the next: `MIGRATIONS[0]`
/// from version 1 to 2 (the shop's settlement mode, a payment's money),
/// `MIGRATIONS[1]` from 2 to 3 (how an issuer's challenge ends),
/// `MIGRATIONS[2]` from 3 to 4 (the key API keys are digested with; the
/// plain keys and passwords of older files are digested when they are read
/// back, and their rows written again), `MIGRATIONS[3]` from 4 to 5 (the
/// buyer a payment was paid by, the card token it was paid with, the
/// shops' card tokens).
const MIGRATIONS: [&str; 4] = [
    "
ALTER TABLE profiles ADD COLUMN settlement TEXT NOT NULL DEFAULT 'unified';
ALTER TABLE profiles ADD COLUMN settlement_delay_ms INTEGER NOT NULL DEFAULT 30000;
ALTER TABLE payments ADD COLUMN ledger TEXT;
",
    "
ALTER TABLE payments ADD COLUMN challenge TEXT;
",
    "
CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
",
    "
ALTER TABLE payments ADD COLUMN buyer TEXT;
ALTER TABLE payments ADD COLUMN card_token TEXT;
CREATE TABLE card_tokens (
    shop_login TEXT NOT NULL,
    token TEXT NOT NULL,
    masked_pan TEXT NOT NULL,
    exp_month INTEGER NOT NULL,
    exp_year INTEGER NOT NULL,
    kind TEXT,
    PRIMARY KEY (shop_login, token)
);
",
];

const TABLES: &str = "
CREATE TABLE profiles (
    shop_login TEXT PRIMARY KEY,
    api_key TEXT NOT NULL,
    success_url TEXT NOT NULL,
    failure_url TEXT NOT NULL,
    notification_url TEXT,
    signing_secret TEXT NOT NULL,
    password TEXT,
    settlement TEXT NOT NULL DEFAULT 'unified',
    settlement_delay_ms INTEGER NOT NULL DEFAULT 30000
);
CREATE TABLE payments (
    token TEXT PRIMARY KEY,
    payment_id INTEGER NOT NULL,
    shop_login TEXT NOT NULL,
    amount TEXT NOT NULL,
    currency TEXT NOT NULL,
    shop_transaction_id TEXT NOT NULL,
    state TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    masked_pan TEXT,
    redirects TEXT,
    channel TEXT,
    authenticated INTEGER,
    events TEXT NOT NULL,
    ledger TEXT,
    challenge TEXT,
    buyer TEXT,
    card_token TEXT
);
CREATE TABLE card_tokens (
    shop_login TEXT NOT NULL,
    token TEXT NOT NULL,
    masked_pan TEXT NOT NULL,
    exp_month INTEGER NOT NULL,
    exp_year INTEGER NOT NULL,
    kind TEXT,
    PRIMARY KEY (shop_login, token)
);
CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE notifications (
    event_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    shop_login TEXT NOT NULL,
    url TEXT NOT NULL,
    body BLOB NOT NULL,
    owed_since_ms INTEGER NOT NULL,
    attempts INTEGER NOT NULL
);
";

/// Why the data file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// It cannot be opened or created.
    #[error("cannot open the data file {path}: {reason}")]
    Open {
        /// The file, as given.
        path: String,
        /// Why, as SQLite or the system says it.
        reason: String,
    },
    /// It is not an SQLite database.
    #[error(
        "{path} is not a sandbox data file (not an SQLite database); give another file to --data"
    )]
    NotADatabase {
        /// The file.
        path: String,
    },
    /// It is another program's database.
    #[error(
        "{path} is another program's SQLite database, not a sandbox data file; give another file to --data"
    )]
    Foreign {
        /// The file.
        path: String,
    },
    /// Another sandbox holds it.
    #[error(
        "{path} is in use by another sandbox (it is locked); stop that sandbox or give another file to --data"
    )]
    Locked {
        /// The file.
        path: String,
    },
    /// A newer sandbox wrote it.
    #[error(
        "{path} was written by a newer version of the sandbox (data version {found}; this one reads version {SCHEMA_VERSION}); upgrade payconf or give another file to --data"
    )]
    Newer {
        /// The file.
        path: String,
        /// Its version.
        found: i32,
    },
    /// Other users may read or write it.
    #[error(
        "{path} can be read or written by other users (mode {mode:04o}); it holds the merchants' secrets: run chmod 600 on it"
    )]
    Exposed {
        /// The file.
        path: String,
        /// Its permission bits.
        mode: u32,
    },
    /// Its content cannot be read back.
    #[error("cannot read the data file {path}: {reason}")]
    Read {
        /// The file.
        path: String,
        /// What is wrong.
        reason: Unreadable,
    },
}

/// What of the data file cannot be read back, and where.
#[derive(Debug, thiserror::Error)]
pub enum Unreadable {
    /// SQLite could not read the table.
    #[error("{table}: {error}")]
    Table {
        /// The table.
        table: &'static str,
        /// What SQLite said.
        #[source]
        error: rusqlite::Error,
    },
    /// A row holds a value the sandbox never writes.
    #[error("{table}: {row}")]
    Row {
        /// The table.
        table: &'static str,
        /// The row and what of it.
        row: BadRow,
    },
}

/// A row that holds a value the sandbox never writes: which row, and what
/// of it, in words.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadRow(pub(super) String);

/// Opens (or creates) the data file, takes it for this sandbox alone, and
/// checks it is ours and of a version this sandbox reads.
pub fn open(path: &Path) -> Result<Connection, DataError> {
    let shown = path.display().to_string();
    // Judged once the file is known to be a sandbox's (or empty): another
    // program's file is refused as that, whatever its mode.
    let exposed = private_file(path).map_err(|error| DataError::Open {
        path: shown.clone(),
        reason: error.to_string(),
    })?;
    let classify = |error: rusqlite::Error| match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) => DataError::NotADatabase {
            path: shown.clone(),
        },
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => DataError::Locked {
            path: shown.clone(),
        },
        _ => DataError::Open {
            path: shown.clone(),
            reason: error.to_string(),
        },
    };
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(classify)?;
    // Exclusive: the first write takes the file's lock and keeps it until
    // the sandbox stops, so a second sandbox on the same file is refused.
    connection
        .pragma_update(None, "locking_mode", "EXCLUSIVE")
        .map_err(classify)?;
    connection
        .execute_batch("BEGIN IMMEDIATE; COMMIT;")
        .map_err(classify)?;
    let application_id: i32 = connection
        .pragma_query_value(None, "application_id", |row| row.get(0))
        .map_err(classify)?;
    let version: i32 = connection
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(classify)?;
    let tables: i64 = connection
        .query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get(0))
        .map_err(classify)?;
    let ours = matches!((application_id, version), (0, 0) if tables == 0)
        || application_id == APPLICATION_ID;
    if let Some(mode) = exposed.filter(|_| ours) {
        return Err(DataError::Exposed { path: shown, mode });
    }
    match (application_id, version) {
        (0, 0) if tables == 0 => create(&connection).map_err(classify)?,
        (APPLICATION_ID, SCHEMA_VERSION) => {}
        (APPLICATION_ID, found @ 1..SCHEMA_VERSION) => {
            migrate(&connection, found).map_err(classify)?;
        }
        (APPLICATION_ID, found) if found > SCHEMA_VERSION => {
            return Err(DataError::Newer { path: shown, found });
        }
        _ => return Err(DataError::Foreign { path: shown }),
    }
    // The write-ahead log: a commit is one append, and a committed write
    // survives the process being killed (`synchronous = NORMAL` skips only
    // the sync that guards against the machine losing power).
    connection
        .pragma_update(None, "journal_mode", "WAL")
        .map_err(classify)?;
    connection
        .pragma_update(None, "synchronous", "NORMAL")
        .map_err(classify)?;
    connection
        .pragma_update(None, "secure_delete", "ON")
        .map_err(classify)?;
    Ok(connection)
}

/// Makes the data file, readable and writable by its owner only, when it
/// is not there (SQLite makes its write-ahead log and index beside it with
/// the same mode); of one that is, the permission bits when others may
/// read or write it.
fn private_file(path: &Path) -> std::io::Result<Option<u32>> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => return Ok(None),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(error),
    }
    let mode = std::fs::metadata(path)?.permissions().mode() & 0o777;
    Ok((mode & 0o077 != 0).then_some(mode))
}

/// The key the file's API key digests are made with: made once, at
/// random, when the file has none.
pub fn digest_key(connection: &Connection) -> rusqlite::Result<[u8; 32]> {
    connection.execute(
        "INSERT OR IGNORE INTO secrets (name, value) VALUES ('api_key_digest', ?1)",
        [crate::secrets::random_bytes().as_slice()],
    )?;
    let key: Vec<u8> = connection.query_row(
        "SELECT value FROM secrets WHERE name = 'api_key_digest'",
        [],
        |row| row.get(0),
    )?;
    key.try_into().map_err(|_| {
        rusqlite::Error::InvalidColumnType(0, "value".into(), rusqlite::types::Type::Blob)
    })
}

/// Brings a file of version `from` up to [`SCHEMA_VERSION`], in one
/// transaction: a file is of one version or the next, never between.
fn migrate(connection: &Connection, from: i32) -> rusqlite::Result<()> {
    let steps: String = (from..SCHEMA_VERSION)
        .filter_map(|version| usize::try_from(version - 1).ok())
        .filter_map(|index| MIGRATIONS.get(index).copied())
        .collect();
    connection.execute_batch(&format!(
        "BEGIN; {steps} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
    ))
}

fn create(connection: &Connection) -> rusqlite::Result<()> {
    connection.execute_batch(&format!(
        "BEGIN; {TABLES} PRAGMA application_id = {APPLICATION_ID}; \
         PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "payconf-journal-{}-{name}",
            uuid::Uuid::new_v4().simple()
        ));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        dir.join("sandbox.db")
    }

    /// Makes a file another program wrote readable by its owner only.
    fn owner_only(path: &Path) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    }

    /// The tables as version 1 wrote them.
    const TABLES_V1: &str = "
        CREATE TABLE profiles (shop_login TEXT PRIMARY KEY, api_key TEXT NOT NULL,
            success_url TEXT NOT NULL, failure_url TEXT NOT NULL, notification_url TEXT,
            signing_secret TEXT NOT NULL, password TEXT);
        CREATE TABLE payments (token TEXT PRIMARY KEY, payment_id INTEGER NOT NULL,
            shop_login TEXT NOT NULL, amount TEXT NOT NULL, currency TEXT NOT NULL,
            shop_transaction_id TEXT NOT NULL, state TEXT NOT NULL, created_ms INTEGER NOT NULL,
            expires_ms INTEGER NOT NULL, masked_pan TEXT, redirects TEXT, channel TEXT,
            authenticated INTEGER, events TEXT NOT NULL);
        CREATE TABLE notifications (event_id TEXT PRIMARY KEY, token TEXT NOT NULL,
            shop_login TEXT NOT NULL, url TEXT NOT NULL, body BLOB NOT NULL,
            owed_since_ms INTEGER NOT NULL, attempts INTEGER NOT NULL);";

    #[test]
    fn a_version_1_file_is_brought_up_to_date_keeping_what_it_holds() {
        let path = scratch("v1");
        {
            let old = Connection::open(&path).expect("a file");
            old.execute_batch(&format!(
                "{TABLES_V1} PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 1;
                 INSERT INTO profiles VALUES ('SHOP', 'key', '/s', '/f', NULL, 'secret', NULL);"
            ))
            .expect("version 1 written");
        }
        owner_only(&path);
        let connection = open(&path).expect("migrated");
        let version: i32 = connection
            .pragma_query_value(None, "user_version", |row| row.get(0))
            .expect("a version");
        assert_eq!(version, SCHEMA_VERSION);
        let (login, settlement): (String, String) = connection
            .query_row("SELECT shop_login, settlement FROM profiles", [], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .expect("the profile kept");
        assert_eq!((login.as_str(), settlement.as_str()), ("SHOP", "unified"));
        let added: i64 = connection
            .query_row(
                "SELECT count(*) FROM pragma_table_info('payments') \
                 WHERE name IN ('ledger', 'challenge')",
                [],
                |row| row.get(0),
            )
            .expect("columns listed");
        assert_eq!(
            added, 2,
            "the ledger (version 2) and the challenge (version 3)"
        );
    }

    #[test]
    fn a_new_file_is_created_and_reopened() {
        let path = scratch("new");
        drop(open(&path).expect("created"));
        drop(open(&path).expect("reopened"));
    }

    #[test]
    fn a_new_file_is_its_owners_alone_and_one_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let path = scratch("modes");
        let connection = open(&path).expect("created");
        let key = digest_key(&connection).expect("a key");
        assert_eq!(digest_key(&connection).expect("the same key"), key);
        drop(connection);
        let mode = |p: &Path| std::fs::metadata(p).expect("there").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        let wal = path.with_extension("db-wal");
        if wal.exists() {
            assert_eq!(mode(&wal), 0o600, "the write-ahead log too");
        }
        for exposed in [0o644, 0o640, 0o604, 0o660] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(exposed))
                .expect("chmod");
            let refused = open(&path).expect_err("exposed");
            assert!(matches!(refused, DataError::Exposed { .. }), "{refused}");
            assert!(
                refused.to_string().contains(&format!("{exposed:04o}"))
                    && refused.to_string().contains("chmod 600"),
                "{refused}"
            );
        }
    }

    #[test]
    fn a_file_held_by_another_sandbox_is_refused_as_locked() {
        let path = scratch("locked");
        let _held = open(&path).expect("created");
        let refused = open(&path).expect_err("held");
        assert!(matches!(refused, DataError::Locked { .. }), "{refused}");
        assert!(refused.to_string().contains("another sandbox"));
    }

    #[test]
    fn a_text_file_is_refused_as_not_a_database() {
        let path = scratch("text");
        std::fs::write(&path, "payments, please\n".repeat(100)).expect("written");
        let refused = open(&path).expect_err("not a database");
        assert!(
            matches!(refused, DataError::NotADatabase { .. }),
            "{refused}"
        );
    }

    #[test]
    fn another_programs_database_and_a_newer_version_are_refused() {
        let foreign = scratch("foreign");
        Connection::open(&foreign)
            .and_then(|c| c.execute_batch("CREATE TABLE t (x);"))
            .expect("another program's database");
        assert!(matches!(open(&foreign), Err(DataError::Foreign { .. })));

        let newer = scratch("newer");
        drop(open(&newer).expect("created"));
        Connection::open(&newer)
            .and_then(|c| c.pragma_update(None, "user_version", SCHEMA_VERSION + 1))
            .expect("a newer version's mark");
        let refused = open(&newer).expect_err("newer");
        assert!(refused.to_string().contains("newer version"), "{refused}");
    }
}
