//! The heavy work of the server (viewsheds, meshes, world updates) goes through one bounded pool:
//! at most `workers` jobs compute at once, at most `queue` more wait for a worker, and a request
//! beyond that is answered at once with 503 and `Retry-After`. A job whose client goes away is
//! cancelled: one still waiting never starts, one running is told through its cancel flag (and
//! holds its worker until it returns, so abandoned work never runs beyond the bound either).

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Seconds a client refused for a full queue is told to wait (`Retry-After`).
pub const RETRY_AFTER_SECONDS: u32 = 1;

/// The pool.
pub struct Jobs {
    workers: Arc<Semaphore>,
    waiting: AtomicUsize,
    queue: usize,
}

/// A worker held by a finished job until its answer is sent: the memory of the answers waiting for
/// slow clients counts against the same bound as the work.
pub type Worker = OwnedSemaphorePermit;

/// Set when the request that asked for a job is gone: a long job checks it between its parts.
pub type Cancel = AtomicBool;

impl Jobs {
    /// A pool of `workers` (≥ 1) with `queue` places to wait.
    pub fn new(workers: usize, queue: usize) -> Self {
        Self { workers: Arc::new(Semaphore::new(workers.max(1))), waiting: AtomicUsize::new(0), queue }
    }

    /// Runs `f` on a worker (a blocking thread) and returns its answer with the worker, which the
    /// caller keeps until the answer is sent. 503 when the queue is full.
    pub async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Cancel) -> Result<T, ApiError> + Send + 'static,
    ) -> Result<(T, Worker), ApiError> {
        // A free worker takes it at once; otherwise it waits in the queue if there is a place (a
        // request dropped while waiting, the client gone, never starts).
        let worker = match self.workers.clone().try_acquire_owned() {
            Ok(w) => w,
            Err(_) => {
                let ticket = Waiting::take(&self.waiting, self.queue).ok_or_else(ApiError::busy)?;
                let w = self.workers.clone().acquire_owned().await.map_err(|_| ApiError::busy())?;
                drop(ticket);
                w
            }
        };
        let cancel = Arc::new(AtomicBool::new(false));
        let _on_drop = CancelOnDrop(cancel.clone());
        let job = tokio::task::spawn_blocking(move || {
            let out = if cancel.load(Ordering::Relaxed) { Err(ApiError::gone()) } else { f(&cancel) };
            (out, worker)
        });
        let (out, worker) = job.await.map_err(|e| ApiError::internal(e.to_string()))?;
        Ok((out?, worker))
    }
}

/// An answer's body that keeps the job's worker until it is sent (or the client goes).
pub fn held(bytes: Vec<u8>, worker: Worker) -> axum::body::Body {
    axum::body::Body::new(Held { data: Some(bytes.into()), _worker: worker })
}

struct Held {
    data: Option<axum::body::Bytes>,
    _worker: Worker,
}

impl http_body::Body for Held {
    type Data = axum::body::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        std::task::Poll::Ready(self.data.take().map(|d| Ok(http_body::Frame::data(d))))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.data.as_ref().map_or(0, |d| d.len() as u64))
    }
}

/// A place in the queue, given back when dropped.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn take(count: &'a AtomicUsize, queue: usize) -> Option<Self> {
        count.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < queue).then_some(n + 1)).ok()?;
        Some(Self(count))
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Raises the cancel flag when the request's future is dropped (its client went away).
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A failed request: its status and message.
#[derive(Debug)]
pub struct ApiError(pub(super) StatusCode, pub(super) String);

impl ApiError {
    /// The heavy-work queue is full: 503, try again after `Retry-After` seconds.
    pub fn busy() -> Self {
        Self(StatusCode::SERVICE_UNAVAILABLE, "the server is busy: too many heavy requests; retry later".into())
    }

    /// The client went away before its job started (nobody sees this answer).
    pub fn gone() -> Self {
        Self(StatusCode::SERVICE_UNAVAILABLE, "cancelled: the client went away".into())
    }

    /// A failure of the server itself.
    pub fn internal(msg: String) -> Self {
        Self(StatusCode::INTERNAL_SERVER_ERROR, msg)
    }

    /// The status.
    #[cfg(test)]
    pub fn status(&self) -> StatusCode {
        self.0
    }
}

/// A 400 with `msg` (a bad request: its message names the parameter).
pub fn bad(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, msg.into())
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let retry = (self.0 == StatusCode::SERVICE_UNAVAILABLE).then_some([(header::RETRY_AFTER, RETRY_AFTER_SECONDS)]);
        (self.0, retry, Json(json!({ "error": self.1 }))).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full queue answers 503 at once; a job whose request is dropped while waiting never runs.
    #[test]
    fn a_full_queue_refuses_and_a_dropped_request_never_runs() {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async {
            let jobs = Arc::new(Jobs::new(1, 1));
            let ran = Arc::new(AtomicUsize::new(0));
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let rx = Arc::new(std::sync::Mutex::new(rx));
            // One job holds the worker until told to finish.
            let (j, r) = (jobs.clone(), rx.clone());
            let first = tokio::spawn(async move {
                j.run(move |_| {
                    let _ = r.lock().unwrap().recv();
                    Ok(())
                })
                .await
                .map(|_| ())
            });
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            // One waits (the queue's one place); a third is refused.
            let (j, n) = (jobs.clone(), ran.clone());
            let waiting = tokio::spawn(async move {
                j.run(move |_| {
                    n.fetch_add(1, Ordering::SeqCst);
                    Ok(())
                })
                .await
                .map(|_| ())
            });
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            let third = jobs.run(|_| Ok(())).await;
            assert!(matches!(third, Err(e) if e.status() == axum::http::StatusCode::SERVICE_UNAVAILABLE));
            waiting.abort();
            let _ = waiting.await;
            tx.send(()).unwrap();
            first.await.unwrap().unwrap();
            // The place is free again, and the aborted job never ran.
            let _ = jobs.run(|_| Ok(())).await.unwrap();
            assert_eq!(ran.load(Ordering::SeqCst), 0);
        });
    }

    /// With no places to wait (`--queue 0`) an idle worker still takes a job; only a busy pool refuses.
    #[test]
    fn no_queue_still_runs_on_a_free_worker() {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async {
            let jobs = Arc::new(Jobs::new(1, 0));
            assert_eq!(jobs.run(|_| Ok(7)).await.map(|(v, _)| v).ok(), Some(7));
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let j = jobs.clone();
            let first = tokio::spawn(async move {
                j.run(move |_| {
                    let _ = rx.recv();
                    Ok(())
                })
                .await
                .map(|_| ())
            });
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            let busy = jobs.run(|_| Ok(())).await;
            assert!(matches!(busy, Err(e) if e.status() == axum::http::StatusCode::SERVICE_UNAVAILABLE));
            tx.send(()).unwrap();
            first.await.unwrap().unwrap();
        });
    }
}
