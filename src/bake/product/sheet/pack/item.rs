//! What the packers place and what they give back: plain data shared by [`super`] and the
//! packers below it (so neither imports the other's definitions).

/// A rectangle to place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Item {
    /// The cell it shows (its index in the job).
    pub cell: usize,
    /// Size.
    pub w: u32,
    /// Size.
    pub h: u32,
    /// Its row: cells of one (clip, direction) share one.
    pub row: usize,
}

/// Where an item went: page, and its top-left corner on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spot {
    /// Page index.
    pub page: usize,
    /// Pixels from the page's left edge.
    pub x: u32,
    /// Pixels from the page's top edge.
    pub y: u32,
}

/// The items' spots (in item order) and each page's size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arranged {
    /// Where each item went.
    pub spots: Vec<Spot>,
    /// Width and height of each page.
    pub sizes: Vec<(u32, u32)>,
}
