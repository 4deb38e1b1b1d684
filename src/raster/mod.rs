//! The rasterizer (placeholder).
