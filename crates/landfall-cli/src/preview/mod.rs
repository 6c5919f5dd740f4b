//! Pictures of rasters for people: a map of a heightfield (shaded, coloured, overlaid), with a
//! legend, a scale bar, a north arrow and marks. `landfall viewshed --png` draws through it.

pub mod canvas;
pub mod font;
pub mod map;
pub mod viewshed;
