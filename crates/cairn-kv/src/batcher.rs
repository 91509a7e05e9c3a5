//! Group commit of client writes: the writes that arrive while earlier ones are in Raft go in
//! together as one entry ([`Request::Batch`]), so that concurrent clients share a log append,
//! its sync on the leader and on each follower, one replication round and one apply.
//!
//! Why in the service: openraft 0.9.25's core task takes one client request at a time, appends
//! it and awaits the append's flush before it takes the next, so a leader's storage sees one
//! entry per append and syncs once per entry whatever it does (docs/design/raft.md, "Appends").
//!
//! How: writes queue on a channel. One task keeps at most [`Batching::max_in_flight`] entries
//! in Raft at once. As soon as one of them is free it takes the first queued write and every
//! write queued behind it, up to [`Batching::max_writes`] writes and [`Batching::max_bytes`]
//! bytes of keys and values, and submits them: a lone write as itself, several as one `Batch`.
//! There is no timer: under light load a write goes in alone at once, under load the queue
//! fills while the entries in flight are replicated, and batches grow with it.
//!
//! Consistency: each write is acknowledged once its entry is applied on the leader, as before.
//! Two writes in one entry, or in two entries in flight together, were both waiting for their
//! acknowledgement when either entered Raft, so they are concurrent and either order is
//! linearizable; a write acknowledged before another was sent is in an earlier entry. One
//! entry's writes apply together, so a crash keeps all of them or none (and none of them was
//! acknowledged before the entry was committed).

use std::future::Future;
use std::sync::Arc;

use openraft::error::{ClientWriteError, RaftError};
use openraft::BasicNode;
use tokio::sync::{mpsc, oneshot, Semaphore};

use crate::{NodeId, Raft, Request, Response};

/// How writes are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batching {
    /// Most writes in one entry; 1 turns grouping off (every write is its own entry).
    pub max_writes: usize,
    /// Most bytes of keys and values in one entry (a single larger write still goes alone).
    pub max_bytes: usize,
    /// Most entries submitted and not yet applied. More lets the leader append the next entry
    /// while one is being replicated; fewer makes bigger entries.
    pub max_in_flight: usize,
}

impl Default for Batching {
    /// 1,000 writes or 4 MiB per entry, 1 entry in flight: the fastest of 1, 2 and 4 on this
    /// 2-core machine (docs/design/raft.md, "Measured").
    fn default() -> Self {
        Batching {
            max_writes: 1000,
            max_bytes: 4 << 20,
            max_in_flight: 1,
        }
    }
}

impl Batching {
    /// Refuses settings that allow no write or no entry.
    ///
    /// # Errors
    /// `max_writes`, `max_bytes` or `max_in_flight` is 0.
    pub fn validate(&self) -> Result<(), String> {
        if self.max_writes == 0 || self.max_bytes == 0 || self.max_in_flight == 0 {
            return Err(format!(
                "batching needs at least one write, one byte and one entry in flight: {self:?}"
            ));
        }
        Ok(())
    }
}

/// Where grouped writes go: Raft, or a stand-in in tests.
pub trait Submit: Send + Sync + 'static {
    /// What a refused or failed submission reports to each of its writes.
    type Error: Clone + Send + 'static;
    /// Replicates and applies `request`; its reply once applied.
    fn submit(
        &self,
        request: Request,
    ) -> impl Future<Output = Result<Response, Self::Error>> + Send;
}

/// The error of a Raft client write.
pub type WriteError = RaftError<NodeId, ClientWriteError<NodeId, BasicNode>>;

impl Submit for Raft {
    type Error = WriteError;

    async fn submit(&self, request: Request) -> Result<Response, WriteError> {
        Ok(self.client_write(request).await?.data)
    }
}

/// Why a write got no reply of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure<E> {
    /// The submission of its entry failed (for Raft: not the leader, or shutting down).
    Write(E),
    /// The batcher stopped, or the entry's reply had no reply for this write.
    Unanswered,
}

struct Queued<E> {
    request: Request,
    reply: oneshot::Sender<Result<Response, Failure<E>>>,
}

/// The queue of a node's writes. Cheap to clone; the grouping task stops when the last clone
/// is dropped, after the writes it took are answered.
pub struct Writes<E> {
    queue: mpsc::UnboundedSender<Queued<E>>,
}

impl<E> Clone for Writes<E> {
    fn clone(&self) -> Self {
        Writes {
            queue: self.queue.clone(),
        }
    }
}

impl<E> std::fmt::Debug for Writes<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writes").finish_non_exhaustive()
    }
}

impl<E: Clone + Send + 'static> Writes<E> {
    /// Starts the grouping task (on the current Tokio runtime) in front of `target`.
    ///
    /// # Panics
    /// If `batching` does not [validate](Batching::validate).
    pub fn start<S: Submit<Error = E>>(target: Arc<S>, batching: Batching) -> Self {
        if let Err(e) = batching.validate() {
            panic!("{e}");
        }
        let (queue, queued) = mpsc::unbounded_channel();
        tokio::spawn(group(target, batching, queued));
        Writes { queue }
    }

    /// Queues `request`; the receiver gets its reply. Entries are formed in queue order; with
    /// more than one entry in flight, two entries may reach Raft in either order (their writes
    /// were all unacknowledged, so concurrent, and either order is linearizable).
    pub fn enqueue(&self, request: Request) -> oneshot::Receiver<Result<Response, Failure<E>>> {
        let (reply, answer) = oneshot::channel();
        // A send fails only when the task has stopped; the dropped sender answers Unanswered.
        let _ = self.queue.send(Queued { request, reply });
        answer
    }

    /// Queues `request` and waits for its reply.
    ///
    /// # Errors
    /// [`Failure::Write`] when its entry's submission failed; [`Failure::Unanswered`] if the
    /// batcher stopped.
    pub async fn write(&self, request: Request) -> Result<Response, Failure<E>> {
        self.enqueue(request)
            .await
            .unwrap_or(Err(Failure::Unanswered))
    }
}

/// Bytes of keys and values of a write.
fn size(request: &Request) -> usize {
    match request {
        Request::Put { key, value } => key.len() + value.len(),
        Request::Delete { key } => key.len(),
        Request::Batch { writes } => writes.iter().map(size).sum(),
    }
}

/// The grouping task: takes what is queued whenever an entry may be submitted.
async fn group<S: Submit>(
    target: Arc<S>,
    batching: Batching,
    mut queued: mpsc::UnboundedReceiver<Queued<S::Error>>,
) {
    let slots = Arc::new(Semaphore::new(batching.max_in_flight));
    // A write taken from the queue that did not fit in the previous entry.
    let mut carried: Option<Queued<S::Error>> = None;
    loop {
        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else {
            return;
        };
        let first = match carried.take() {
            Some(q) => q,
            None => match queued.recv().await {
                Some(q) => q,
                None => return,
            },
        };
        let mut bytes = size(&first.request);
        let mut writes = vec![first];
        while writes.len() < batching.max_writes {
            let Ok(next) = queued.try_recv() else { break };
            let more = size(&next.request);
            if bytes + more > batching.max_bytes {
                carried = Some(next);
                break;
            }
            bytes += more;
            writes.push(next);
        }
        let target = Arc::clone(&target);
        tokio::spawn(async move {
            commit(&*target, writes).await;
            drop(slot);
        });
    }
}

/// Submits one entry for `writes` and answers each of them.
async fn commit<S: Submit>(target: &S, mut writes: Vec<Queued<S::Error>>) {
    if writes.len() == 1 {
        let Queued { request, reply } = writes.pop().expect("one write");
        let _ = reply.send(target.submit(request).await.map_err(Failure::Write));
        return;
    }
    let (requests, replies): (Vec<_>, Vec<_>) =
        writes.into_iter().map(|q| (q.request, q.reply)).unzip();
    match target.submit(Request::Batch { writes: requests }).await {
        Ok(response) => {
            let mut each = response.batch.into_iter();
            for reply in replies {
                let _ = reply.send(each.next().ok_or(Failure::Unanswered));
            }
        }
        Err(e) => {
            for reply in replies {
                let _ = reply.send(Err(Failure::Write(e.clone())));
            }
        }
    }
}
