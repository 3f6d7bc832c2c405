//! Nothing lost on restart: with a data file (`payconf serve --data`), the
//! sandbox writes every change of a profile, a payment or a notification
//! owed through the journal, and reads them back when it starts.
//!
//! Changes are queued in the order they were made, under the payment's
//! lock, and written by one thread that commits whatever has queued up in
//! one transaction (a group commit, so a busy sandbox commits many changes
//! at once). A request's answer waits for [`Journal::durable`]: every
//! change queued until then is committed, so a payment acknowledged to the
//! merchant is in the file, and survives the sandbox being killed. A write
//! that fails (a full disk) breaks the journal: from then on answers that
//! need it are refused rather than acknowledged without it.

mod file;
mod rows;

use std::{
    path::Path,
    sync::{
        Arc,
        mpsc::{self, Receiver},
    },
};

use parking_lot::Mutex;
use rusqlite::Connection;
use tokio::sync::watch;
use uuid::Uuid;

pub use file::DataError;
pub use rows::Restored;
use rows::{CardTokenRow, NotificationRow, PaymentRow, ProfileRow};

use crate::{
    outbox::Delivery,
    store::{Payment, PaymentLog},
};

/// The most changes one transaction takes.
const MAX_BATCH: usize = 4096;

/// A change to write.
#[derive(Debug)]
enum Change {
    Payment(Box<PaymentRow>),
    ForgetPayments(Vec<Uuid>),
    Profile(ProfileRow),
    Owe(NotificationRow),
    Attempted { event_id: Uuid, attempts: u32 },
    Settled { event_id: Uuid },
    CardToken(CardTokenRow),
    ForgetCardToken { shop_login: String, token: String },
}

/// How far the writer is.
#[derive(Clone, Debug, Default)]
struct Progress {
    /// Changes committed, counted in queue order.
    committed: u64,
    /// Why the journal broke, once it has.
    broken: Option<String>,
}

/// The queue of changes to the data file, and how far they are written.
#[derive(Debug)]
pub struct Journal {
    /// The sender and the count of changes sent, together: a change's place
    /// in the count is its place in the queue.
    queue: Mutex<(Option<mpsc::Sender<Change>>, u64)>,
    /// The writer thread, until [`Journal::close`] joins it.
    writer: Mutex<Option<std::thread::JoinHandle<()>>>,
    progress: watch::Receiver<Progress>,
    /// Shop logins by merchant index: payments are written by shop login,
    /// so a data file outlives a change of the configuration's order.
    logins: Vec<Box<str>>,
}

/// The journal broke: a change could not be written.
#[derive(Debug, thiserror::Error)]
#[error("the data file cannot be written: {0}")]
pub struct Broken(pub String);

impl Journal {
    /// Opens the data file and reads back what it holds; [`Journal::start`]
    /// then writes to the opened file.
    pub fn open(path: &Path) -> Result<(Connection, Restored), DataError> {
        let connection = file::open(path)?;
        let restored = rows::read(&connection).map_err(|reason| DataError::Read {
            path: path.display().to_string(),
            reason,
        })?;
        Ok((connection, restored))
    }

    /// Starts the writer thread on an opened file.
    pub fn start(connection: Connection, logins: Vec<Box<str>>) -> Arc<Self> {
        let (sender, receiver) = mpsc::channel();
        let (report, progress) = watch::channel(Progress::default());
        let writer = std::thread::Builder::new()
            .name("sandbox-journal".to_owned())
            .spawn(move || write_changes(connection, &receiver, &report))
            .expect("the journal's thread starts");
        Arc::new(Self {
            queue: Mutex::new((Some(sender), 0)),
            writer: Mutex::new(Some(writer)),
            progress,
            logins,
        })
    }

    fn queue(&self, change: Change) {
        let mut queue = self.queue.lock();
        // The writer lives as long as the sender: the send cannot fail.
        // After `close`, there is no sender, and nothing more is written.
        if let Some(sender) = &queue.0 {
            let _ = sender.send(change);
            queue.1 += 1;
        }
    }

    /// Writes what is queued, closes the file and lets it go: another
    /// sandbox may open it once this returns. Blocks until then.
    pub fn close(&self) {
        self.queue.lock().0.take();
        if let Some(writer) = self.writer.lock().take() {
            let _ = writer.join();
        }
    }

    /// Waits until every change queued so far is committed.
    pub async fn durable(&self) -> Result<(), Broken> {
        let target = self.queue.lock().1;
        let mut progress = self.progress.clone();
        let reached = progress
            .wait_for(|p| p.committed >= target || p.broken.is_some())
            .await
            .map_err(|_| Broken("the journal's writer stopped".to_owned()))?;
        match &reached.broken {
            Some(why) => Err(Broken(why.clone())),
            None => Ok(()),
        }
    }

    /// Queues a profile as it is now.
    pub fn profile(&self, profile: &crate::profiles::Profile) {
        self.queue(Change::Profile(ProfileRow::of(profile)));
    }

    /// Queues a notification owed.
    pub fn owe(&self, delivery: &Delivery) {
        let login = self
            .logins
            .get(delivery.merchant as usize)
            .cloned()
            .unwrap_or_default();
        self.queue(Change::Owe(NotificationRow::of(delivery, &login)));
    }

    /// Queues the count of attempts a notification has had.
    pub fn attempted(&self, delivery: &Delivery) {
        self.queue(Change::Attempted {
            event_id: delivery.event_id,
            attempts: delivery.attempts,
        });
    }

    /// Queues a shop's card token.
    pub fn card_token(&self, merchant: u32, token: &str, card: &crate::card_tokens::TokenCard) {
        let login = self.login(merchant);
        self.queue(Change::CardToken(CardTokenRow::of(&login, token, card)));
    }

    /// Queues a shop's card token deleted.
    pub fn forget_card_token(&self, merchant: u32, token: &str) {
        let shop_login = self.login(merchant).to_string();
        self.queue(Change::ForgetCardToken {
            shop_login,
            token: token.to_owned(),
        });
    }

    /// The shop login of a merchant's index, as the file names it.
    fn login(&self, merchant: u32) -> Box<str> {
        self.logins
            .get(merchant as usize)
            .cloned()
            .unwrap_or_default()
    }

    /// Queues the end of a notification: delivered, or abandoned.
    pub fn settled(&self, delivery: &Delivery) {
        self.queue(Change::Settled {
            event_id: delivery.event_id,
        });
    }
}

impl PaymentLog for Journal {
    fn payment(&self, token: &Uuid, payment: &Payment, expires_unix_ms: u64) {
        let login = self
            .logins
            .get(payment.merchant as usize)
            .cloned()
            .unwrap_or_default();
        self.queue(Change::Payment(Box::new(PaymentRow::of(
            token,
            payment,
            &login,
            expires_unix_ms,
        ))));
    }

    fn forget(&self, tokens: Vec<Uuid>) {
        if !tokens.is_empty() {
            self.queue(Change::ForgetPayments(tokens));
        }
    }
}

/// The writer: takes what has queued up, commits it in one transaction,
/// reports how far it is; until every sender is gone.
fn write_changes(
    mut connection: Connection,
    receiver: &Receiver<Change>,
    report: &watch::Sender<Progress>,
) {
    while let Ok(first) = receiver.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match receiver.try_recv() {
                Ok(change) => batch.push(change),
                Err(_) => break,
            }
        }
        let written = if report.borrow().broken.is_some() {
            Ok(())
        } else {
            commit(&mut connection, &batch)
        };
        report.send_modify(|progress| {
            progress.committed += batch.len() as u64;
            if let Err(error) = written {
                tracing::error!(%error, "the data file cannot be written; payments are refused from now on");
                progress.broken.get_or_insert_with(|| error.to_string());
            }
        });
    }
}

fn commit(connection: &mut Connection, batch: &[Change]) -> rusqlite::Result<()> {
    let transaction = connection.transaction()?;
    for change in batch {
        match change {
            Change::Payment(row) => row.write(&transaction)?,
            Change::ForgetPayments(tokens) => {
                let mut statement =
                    transaction.prepare_cached("DELETE FROM payments WHERE token = ?1")?;
                for token in tokens {
                    statement.execute([token.hyphenated().to_string()])?;
                }
            }
            Change::Profile(row) => row.write(&transaction)?,
            Change::Owe(row) => row.write(&transaction)?,
            Change::Attempted { event_id, attempts } => {
                transaction
                    .prepare_cached("UPDATE notifications SET attempts = ?2 WHERE event_id = ?1")?
                    .execute((event_id.hyphenated().to_string(), attempts))?;
            }
            Change::Settled { event_id } => {
                transaction
                    .prepare_cached("DELETE FROM notifications WHERE event_id = ?1")?
                    .execute([event_id.hyphenated().to_string()])?;
            }
            Change::CardToken(row) => row.write(&transaction)?,
            Change::ForgetCardToken { shop_login, token } => {
                transaction
                    .prepare_cached("DELETE FROM card_tokens WHERE shop_login = ?1 AND token = ?2")?
                    .execute((shop_login, token))?;
            }
        }
    }
    transaction.commit()
}
