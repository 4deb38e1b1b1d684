//! Golden-image comparison (placeholder).
