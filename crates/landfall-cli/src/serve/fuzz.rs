//! The server fed arbitrary bytes as one connection's request stream: the `request` fuzz target
//! (`fuzz/fuzz_targets/request.rs`) and, on stable Rust, the replay of its corpus (the test below).
//! Whatever arrives — a malformed request line, huge or broken headers, a body, junk query
//! parameters, many pipelined requests — the server must answer with HTTP or close, within a few
//! seconds, and never panic.

use super::{api, conn, jobs};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server on a 16 × 16 heightfield, its runtime, built once per process.
fn server() -> &'static (tokio::runtime::Runtime, axum::Router) {
    static SERVER: OnceLock<(tokio::runtime::Runtime, axum::Router)> = OnceLock::new();
    SERVER.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        let heights: Vec<f32> = (0..256).map(|k| ((k % 16) as f32 * 0.7).sin() * 5.0 + (k / 16) as f32).collect();
        let hf = landfall::Heightfield::builder(16, 16, heights).build().expect("a heightfield");
        let state = api::State::of(landfall_io::AnyTerrain::Heightfield(hf), "fuzz".into(), jobs::Jobs::new(1, 2));
        (rt, api::router(state))
    })
}

/// Sends `data` on one connection, then closes its sending side; the answer must be HTTP (or
/// nothing) and come within 5 s.
pub fn request(data: &[u8]) {
    let (rt, router) = server();
    let limits = conn::Limits {
        max_connections: 1,
        header_timeout: Duration::from_secs(1),
        send_timeout: Duration::from_secs(1),
    };
    rt.block_on(async {
        let (mut client, server) = tokio::io::duplex(1 << 16);
        let busy = Arc::new(AtomicUsize::new(0));
        let served = tokio::spawn(conn::connection(server, router.clone(), limits, busy.clone()));
        let talk = async {
            let _ = client.write_all(data).await;
            let _ = client.shutdown().await;
            let mut out = Vec::new();
            let _ = client.read_to_end(&mut out).await;
            out
        };
        let out =
            tokio::time::timeout(Duration::from_secs(5), talk).await.expect("the server answers or closes in 5 s");
        // HTTP/1.0 requests are answered in HTTP/1.0.
        let http = out.starts_with(b"HTTP/1.1 ") || out.starts_with(b"HTTP/1.0 ");
        assert!(out.is_empty() || http, "not HTTP: {:?}", String::from_utf8_lossy(&out));
        // The connection's task is over, and what it held freed, before the next input (else the
        // fuzzer's leak check finds the duplex buffer with only a pointer one past its end).
        served.abort();
        let _ = served.await;
        assert_eq!(Arc::strong_count(&busy), 1, "the connection's task outlived its request");
    });
}

#[cfg(test)]
mod tests {
    /// Every input of the `request` fuzz corpus, and every finding kept in its regressions.
    #[test]
    fn the_request_corpus_replays() {
        let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
        let mut n = 0;
        for dir in [fuzz.join("corpus/request"), fuzz.join("regressions/request")] {
            for entry in std::fs::read_dir(dir).into_iter().flatten() {
                super::request(&std::fs::read(entry.unwrap().path()).unwrap());
                n += 1;
            }
        }
        assert!(n > 0, "empty corpus");
    }

    /// The connection's task is over when `request` returns (`request` asserts it): one still being
    /// aborted held the duplex buffer, which the fuzzer's leak check reported as lost.
    #[test]
    fn nothing_outlives_a_request() {
        let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
        let data =
            std::fs::read(fuzz.join("regressions/request/leak-9521968b0979209fb35fdc1e0a4ff67c799c24e7")).unwrap();
        for _ in 0..200 {
            super::request(&data);
        }
    }
}
