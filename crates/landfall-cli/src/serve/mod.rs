//! `landfall serve`: the terrain in a browser. A local web server (axum) hands out the page (three.js,
//! vendored: it works offline), the terrain's mesh with the colour map's colours and normals, and
//! answers the page's questions with landfall's own queries: the exact height and normal under the
//! cursor (a ray cast on the server, so what is seen and what is queried agree), line of sight, the
//! viewshed; for the procedural world, the nested cache follows the camera (only the regions that
//! changed are sent again) and a walker moves with the character controller. No file is served but
//! the page's own assets, compiled in.

mod api;
mod instances;
mod mesh;
mod tiles;

use anyhow::{bail, Context, Result};
use clap::Args;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

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
}

pub fn run(a: &ServeArgs) -> Result<()> {
    let state = if a.world {
        api::State::world()?
    } else {
        let path = a.path.clone().context("give a terrain file or --world")?;
        api::State::terrain(&path)?
    };
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("cannot start the server")?;
    rt.block_on(async move {
        let addr = SocketAddr::new(a.host, a.port);
        let listener = match tokio::net::TcpListener::bind(addr).await {
            Ok(l) => l,
            Err(e) => bail!("cannot listen on {addr}: {e}"),
        };
        let local = listener.local_addr()?;
        // The one line a script waits for.
        println!("landfall serve: http://{local}/ ({}; Ctrl-C to stop)", state.describe());
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        axum::serve(listener, api::router(state))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .context("the server stopped")
    })
}
