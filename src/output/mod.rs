//! Image outputs (placeholder).
