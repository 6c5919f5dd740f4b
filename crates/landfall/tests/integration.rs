//! The library's integration tests: each file of this folder is a module of this one test binary
//! (one link of the library and its dependencies instead of one per file). One file's tests:
//! `cargo test -p landfall --test integration broad::`.

mod broad;
mod controller;
mod curved;
mod events_line;
mod events_terrain;
mod groups;
mod heightfield_parts;
mod layering;
mod paths;
mod place;
mod polygon_reference;
mod reference;
mod scale;
mod sweep;
mod targets;
mod tile_view;
mod tiled;
mod viewshed;
mod viewshed_cull;
mod viewshed_sweep;
mod world;
mod world_objects;
