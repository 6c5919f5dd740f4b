//! Connections: accepted up to a cap, each served by hyper's HTTP/1 with a header read timeout, a
//! send timeout and a small header buffer; requests with a body are refused (every endpoint is a
//! GET), so no body is ever read. When the cap is reached, the connection idle the longest (waiting
//! for a request, or half-sent) is closed to make room, so half-open connections cannot lock
//! clients out; if every connection is busy, the new one gets a 503 and is closed.

use axum::body::Body;
use axum::http::{header, Request, Response, StatusCode};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tower_service::Service;

/// How connections are bounded.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most connections open at once.
    pub max_connections: usize,
    /// Time a client has to send a request's headers (also the longest a kept-alive connection
    /// waits idle for its next request).
    pub header_timeout: Duration,
    /// Time an answer may wait for the client to take more of it.
    pub send_timeout: Duration,
}

/// Largest request head (request line and headers): more is a 431.
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// One open connection.
struct Open {
    id: u64,
    since: Instant,
    busy: Arc<AtomicUsize>,
    abort: tokio::task::AbortHandle,
}

/// The open connections.
#[derive(Default)]
struct Table {
    open: Mutex<Vec<Open>>,
}

impl Table {
    /// Makes room for one more: closes the longest-idle connection when full. False if all are busy.
    fn room(&self, max: usize) -> bool {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.len() < max {
            return true;
        }
        let idle = open.iter().enumerate().filter(|(_, o)| o.busy.load(Ordering::Acquire) == 0);
        let Some((k, _)) = idle.min_by_key(|(_, o)| o.since) else { return false };
        open.swap_remove(k).abort.abort();
        true
    }

    fn remove(&self, id: u64) {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = open.iter().position(|o| o.id == id) {
            open.swap_remove(k);
        }
    }
}

/// Takes the connection out of the table when its task ends or is aborted.
struct Leave(Arc<Table>, u64);

impl Drop for Leave {
    fn drop(&mut self) {
        self.0.remove(self.1);
    }
}

/// Counts a request in progress on its connection (a busy connection is never closed for room).
struct Busy(Arc<AtomicUsize>);

impl Busy {
    fn new(n: &Arc<AtomicUsize>) -> Self {
        n.fetch_add(1, Ordering::AcqRel);
        Self(n.clone())
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Accepts and serves connections until `stop` completes.
pub async fn serve(listener: TcpListener, router: Router, limits: Limits, stop: impl Future<Output = ()>) {
    let table = Arc::new(Table::default());
    let mut next_id = 0u64;
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors or memory: wait a little rather than spin.
                    eprintln!("landfall serve: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        if !table.room(limits.max_connections) {
            tokio::spawn(refuse(stream));
            continue;
        }
        next_id += 1;
        let (id, busy) = (next_id, Arc::new(AtomicUsize::new(0)));
        let leave = Leave(table.clone(), id);
        let (router, b) = (router.clone(), busy.clone());
        // The table is held while the task starts, so that it cannot leave before it is entered.
        let mut open = table.open.lock().unwrap_or_else(|e| e.into_inner());
        let task = tokio::spawn(async move {
            let _leave = leave;
            connection(stream, router, limits, b).await;
        });
        open.push(Open { id, since: Instant::now(), busy, abort: task.abort_handle() });
    }
    // Stopping: every connection is closed (their requests dropped, so their jobs are cancelled).
    for o in table.open.lock().unwrap_or_else(|e| e.into_inner()).drain(..) {
        o.abort.abort();
    }
}

/// Serves one connection's requests until it closes, fails or times out; `busy` counts the
/// requests in progress.
pub async fn connection<I>(io: I, router: Router, limits: Limits, busy: Arc<AtomicUsize>)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let io = TokioIo::new(TimedIo::new(io, limits.send_timeout));
    let service = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
        let _busy = Busy::new(&busy);
        let mut router = router.clone();
        async move {
            let _busy = _busy;
            if has_body(&req) {
                return Ok::<_, std::convert::Infallible>(status(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "requests carry no body here",
                ));
            }
            router.call(req).await
        }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(MAX_HEAD_BYTES)
        .serve_connection(io, service)
        .await;
}

/// Whether a request declares a body.
fn has_body<B>(req: &Request<B>) -> bool {
    let h = req.headers();
    h.contains_key(header::TRANSFER_ENCODING)
        || h.get(header::CONTENT_LENGTH).is_some_and(|v| v.to_str().map_or(true, |s| s.trim() != "0"))
}

/// A short plain answer that closes the connection.
fn status(code: StatusCode, msg: &'static str) -> Response<Body> {
    let mut r = Response::new(Body::from(msg));
    *r.status_mut() = code;
    r.headers_mut().insert(header::CONNECTION, header::HeaderValue::from_static("close"));
    r
}

/// Answers a connection there is no room for with a 503 (as far as the socket takes it at once)
/// and closes it.
async fn refuse(stream: TcpStream) {
    let msg = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: {}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        super::jobs::RETRY_AFTER_SECONDS
    );
    let _ = stream.try_write(msg.as_bytes());
}

/// A stream whose writes fail when the client takes nothing for `timeout` (a client that stops
/// reading cannot hold an answer, and the worker behind it, forever).
struct TimedIo<T> {
    inner: T,
    timeout: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<T> TimedIo<T> {
    fn new(inner: T, timeout: Duration) -> Self {
        Self { inner, timeout, stalled: None }
    }

    /// `Pending` from a write: arms the timer, fails once it has run out.
    fn pending<R>(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<R>> {
        let timeout = self.timeout;
        let sleep = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took nothing of the answer in time",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for TimedIo<T> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for TimedIo<T> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Pending => self.pending(cx),
            done => {
                self.stalled = None;
                done
            }
        }
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Pending => self.pending(cx),
            done => {
                self.stalled = None;
                done
            }
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
