//! `landfall serve`: the terrain in a browser. A local web server (hyper and axum) hands out the
//! page (three.js, vendored: it works offline), the terrain's mesh with the colour map's colours and
//! normals, and answers the page's questions with landfall's own queries: the exact height and
//! normal under the cursor (a ray cast on the server, so what is seen and what is queried agree),
//! line of sight, the viewshed; for the procedural world, the nested cache follows the camera (only
//! the regions that changed are sent again) and a walker moves with the character controller. No
//! file is served but the page's own assets, compiled in.
//!
//! Exposed to strangers, it stays up (`docs/robustness.md`): heavy work goes through a bounded
//! pool ([`jobs`]), connections are capped and timed ([`conn`]), and light queries (heights, rays,
//! sight lines) never wait behind heavy ones.

mod api;
mod conn;
#[cfg_attr(not(test), allow(dead_code))] // used by the `request` fuzz target and its replay test
pub mod fuzz;
mod instances;
mod jobs;
mod mesh;
mod tiles;

use anyhow::{bail, Context, Result};
use clap::Args;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

/// Options of `landfall serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Terrain file (any the other commands read: rasters, meshes, index files).
    #[arg(value_name = "TERRAIN", required_unless_present = "world")]
    path: Option<PathBuf>,
    /// Serve the endless procedural world of `landfall world` instead of a file.
    #[arg(long, conflicts_with = "path")]
    world: bool,
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on. The default serves this machine only; give 0.0.0.0 to serve others.
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Heavy requests (viewsheds, meshes, world updates) computed at once (default: half the
    /// processors, at least 1). Each holds its answer until it is sent.
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Heavy requests that may wait for a worker; more are answered 503 with Retry-After.
    #[arg(long, value_name = "N", default_value_t = 16)]
    queue: usize,
    /// Connections open at once (the longest idle is closed to make room; also bounded by the
    /// process's file limit).
    #[arg(long, value_name = "N", default_value_t = 512)]
    max_connections: usize,
    /// Seconds a client has to send a request's headers, and to take each part of an answer.
    #[arg(long, value_name = "S", default_value_t = 10)]
    timeout: u64,
}

pub fn run(a: &ServeArgs) -> Result<()> {
    let workers = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() / 2)).max(1);
    if a.timeout == 0 || a.max_connections == 0 {
        bail!("--timeout and --max-connections must be at least 1");
    }
    let jobs = jobs::Jobs::new(workers, a.queue);
    let state = if a.world {
        api::State::world(jobs)?
    } else {
        let path = a.path.clone().context("give a terrain file or --world")?;
        api::State::terrain(&path, jobs)?
    };
    let limits = conn::Limits {
        max_connections: a.max_connections.min(file_limit().saturating_sub(64).max(1)),
        header_timeout: Duration::from_secs(a.timeout),
        send_timeout: Duration::from_secs(a.timeout),
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the server")?;
    let served = rt.block_on(async move {
        let addr = SocketAddr::new(a.host, a.port);
        let listener = match listen(addr) {
            Ok(l) => l,
            Err(e) => bail!("cannot listen on {addr}: {e}"),
        };
        let local = listener.local_addr()?;
        // The one line a script waits for.
        println!("landfall serve: http://{local}/ ({}; Ctrl-C to stop)", state.describe());
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        let stop = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        conn::serve(listener, api::router(state), limits, stop).await;
        Ok(())
    });
    // Ctrl-C: the connections are closed; work still running on a worker is not waited for.
    rt.shutdown_background();
    served
}

/// A listening socket with a deep accept queue (a burst of connections waits for the accept loop
/// instead of being dropped, which costs a client a one-second SYN retry).
fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(4096)
}

/// The process's limit on open files, raised to its hard limit (each connection is one).
fn file_limit() -> usize {
    #[cfg(unix)]
    {
        let mut l = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit and setrlimit only read and write the struct passed.
        unsafe {
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) != 0 {
                return 1024;
            }
            if l.rlim_cur < l.rlim_max {
                let raised = libc::rlimit { rlim_cur: l.rlim_max, rlim_max: l.rlim_max };
                if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                    l = raised;
                }
            }
        }
        usize::try_from(l.rlim_cur).unwrap_or(usize::MAX)
    }
    #[cfg(not(unix))]
    {
        usize::MAX
    }
}
