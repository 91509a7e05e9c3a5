//! Group commit of client writes (`cairn_kv::batcher`), with the test standing in for Raft: it
//! sees each submitted entry and answers it when it chooses, so which writes share an entry is
//! decided by the order of events, not by timing.

use std::sync::Arc;

use cairn_kv::batcher::{Batching, Failure, Submit, Writes};
use cairn_kv::{Request, Response};
use tokio::sync::{mpsc, oneshot};

type Answer = oneshot::Sender<Result<Response, String>>;

/// Raft as the test plays it: every submission arrives on a channel with its answer.
struct Stand {
    submitted: mpsc::UnboundedSender<(Request, Answer)>,
}

impl Submit for Stand {
    type Error = String;

    async fn submit(&self, request: Request) -> Result<Response, String> {
        let (answer, answered) = oneshot::channel();
        self.submitted.send((request, answer)).expect("test alive");
        answered.await.expect("test answers")
    }
}

fn start(batching: Batching) -> (Writes<String>, mpsc::UnboundedReceiver<(Request, Answer)>) {
    let (submitted, entries) = mpsc::unbounded_channel();
    (
        Writes::start(Arc::new(Stand { submitted }), batching),
        entries,
    )
}

fn put(key: &str) -> Request {
    Request::Put {
        key: key.into(),
        value: format!("value of {key}"),
    }
}

fn value(v: &str) -> Response {
    Response {
        value: Some(v.into()),
        batch: Vec::new(),
    }
}

fn keys(request: &Request) -> Vec<String> {
    match request {
        Request::Put { key, .. } | Request::Delete { key } => vec![key.clone()],
        Request::Batch { writes } => writes.iter().flat_map(keys).collect(),
    }
}

#[tokio::test]
async fn writes_queued_behind_an_entry_in_flight_share_the_next_entry_in_order() {
    let (writes, mut entries) = start(Batching {
        max_writes: 100,
        max_bytes: 1 << 20,
        max_in_flight: 1,
    });
    let a = writes.enqueue(put("a"));
    let (first, answer_a) = entries.recv().await.expect("entry");
    assert_eq!(first, put("a"), "a lone write goes in as itself, at once");
    let rest: Vec<_> = ["b", "c", "d"]
        .iter()
        .map(|k| writes.enqueue(put(k)))
        .collect();
    answer_a.send(Ok(value("A"))).unwrap();
    assert_eq!(a.await.unwrap(), Ok(value("A")));

    let (second, answer) = entries.recv().await.expect("entry");
    assert_eq!(
        second,
        Request::Batch {
            writes: vec![put("b"), put("c"), put("d")]
        },
        "the three queued writes make one entry, in the order queued"
    );
    answer
        .send(Ok(Response {
            value: None,
            batch: vec![value("B"), value("C"), value("D")],
        }))
        .unwrap();
    let mut got = Vec::new();
    for r in rest {
        got.push(r.await.unwrap());
    }
    assert_eq!(got, vec![Ok(value("B")), Ok(value("C")), Ok(value("D"))]);
}

#[tokio::test]
async fn entries_are_capped_by_writes_and_bytes_and_several_fly_at_once() {
    let (writes, mut entries) = start(Batching {
        max_writes: 2,
        max_bytes: 25,
        max_in_flight: 2,
    });
    // Two lone writes take both slots; what is queued after them waits for a slot.
    let _x = writes.enqueue(put("x"));
    let (x, answer_x) = entries.recv().await.unwrap();
    let _y = writes.enqueue(put("y"));
    let (y, answer_y) = entries.recv().await.unwrap();
    assert_eq!(
        (x, y),
        (put("x"), put("y")),
        "two entries in flight at once"
    );
    // Puts of 11 bytes (key "1", value "value of 1"), one of 103, then another small one.
    let _queued: Vec<_> = ["1", "2", "3", "4", "5"]
        .iter()
        .map(|k| writes.enqueue(put(k)))
        .collect();
    let big = Request::Put {
        key: "big".into(),
        value: "v".repeat(100),
    };
    let _big = writes.enqueue(big.clone());
    let _last = writes.enqueue(put("6"));
    // The test runs on one thread: yielding lets the grouping task take whatever it may.
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert!(
        entries.try_recv().is_err(),
        "no third entry while two are in flight"
    );
    answer_x.send(Ok(value("x"))).unwrap();
    let (e1, answer1) = entries.recv().await.unwrap();
    assert_eq!(keys(&e1), vec!["1", "2"], "two writes at most");
    answer_y.send(Ok(value("y"))).unwrap();
    let (e2, answer2) = entries.recv().await.unwrap();
    assert_eq!(keys(&e2), vec!["3", "4"]);
    answer1.send(Err("refused".into())).unwrap();
    let (e3, answer3) = entries.recv().await.unwrap();
    assert_eq!(
        keys(&e3),
        vec!["5"],
        "11 + 103 bytes exceed the 25-byte cap"
    );
    answer2.send(Err("refused".into())).unwrap();
    let (e4, _answer4) = entries.recv().await.unwrap();
    assert_eq!(e4, big, "a write larger than the cap goes alone");
    answer3.send(Err("refused".into())).unwrap();
    let (e5, _answer5) = entries.recv().await.unwrap();
    assert_eq!(e5, put("6"));
}

#[tokio::test]
async fn a_failed_entry_fails_each_of_its_writes_and_missing_replies_are_unanswered() {
    let (writes, mut entries) = start(Batching {
        max_writes: 10,
        max_bytes: 1 << 20,
        max_in_flight: 1,
    });
    let a = writes.enqueue(put("a"));
    let (_, answer_a) = entries.recv().await.unwrap();
    let (b, c) = (writes.enqueue(put("b")), writes.enqueue(put("c")));
    answer_a.send(Ok(value("A"))).unwrap();
    let (_, answer_bc) = entries.recv().await.unwrap();
    answer_bc.send(Err("not the leader".into())).unwrap();
    assert_eq!(a.await.unwrap(), Ok(value("A")));
    assert_eq!(
        b.await.unwrap(),
        Err(Failure::Write("not the leader".into()))
    );
    assert_eq!(
        c.await.unwrap(),
        Err(Failure::Write("not the leader".into()))
    );

    // A batch reply that is short of replies answers the writes it lacks as Unanswered
    // (never with another write's reply).
    let d = writes.enqueue(put("d"));
    let (_, answer_d) = entries.recv().await.unwrap();
    let (e, f) = (writes.enqueue(put("e")), writes.enqueue(put("f")));
    answer_d.send(Ok(value("D"))).unwrap();
    let (_, answer_ef) = entries.recv().await.unwrap();
    answer_ef
        .send(Ok(Response {
            value: None,
            batch: vec![value("E")],
        }))
        .unwrap();
    assert_eq!(d.await.unwrap(), Ok(value("D")));
    assert_eq!(e.await.unwrap(), Ok(value("E")));
    assert_eq!(f.await.unwrap(), Err(Failure::Unanswered));
}

#[test]
fn settings_that_allow_nothing_are_refused() {
    for b in [
        Batching {
            max_writes: 0,
            ..Batching::default()
        },
        Batching {
            max_bytes: 0,
            ..Batching::default()
        },
        Batching {
            max_in_flight: 0,
            ..Batching::default()
        },
    ] {
        assert!(b.validate().is_err(), "{b:?}");
    }
    assert_eq!(Batching::default().validate(), Ok(()));
}
