use crate::error::{Error, Result};

/// An 8-bit RGBA image, sRGB-encoded with straight (not premultiplied) alpha, rows top to
/// bottom: exactly what PNG and GIF encoders and image comparisons want.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub rgba: Vec<u8>,
}

impl Image {
    /// A fully transparent image.
    ///
    /// # Errors
    /// When `width * height * 4` overflows `usize`.
    pub fn new(width: u32, height: u32) -> Result<Image> {
        Ok(Image { width, height, rgba: vec![0; Image::byte_len(width, height)?] })
    }

    /// Makes this a `width × height` image with every pixel `rgba`, reusing the buffer.
    ///
    /// # Errors
    /// When `width * height * 4` overflows `usize`.
    pub fn fill(&mut self, width: u32, height: u32, rgba: [u8; 4]) -> Result<()> {
        let len = Image::byte_len(width, height)?;
        self.rgba.clear();
        if rgba == [0; 4] {
            self.rgba.resize(len, 0);
        } else {
            self.rgba.extend(std::iter::repeat_n(rgba, len / 4).flatten());
        }
        (self.width, self.height) = (width, height);
        Ok(())
    }

    fn byte_len(width: u32, height: u32) -> Result<usize> {
        (width as usize)
            .checked_mul(height as usize)
            .and_then(|n| n.checked_mul(4))
            .ok_or_else(|| Error::Size(format!("image size {width}x{height} is too large")))
    }

    /// Wraps existing pixels; `None` when the byte count does not match the size.
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>) -> Option<Image> {
        let expected = (width as usize).checked_mul(height as usize)?.checked_mul(4)?;
        (rgba.len() == expected).then_some(Image { width, height, rgba })
    }

    /// The pixel at (x, y), or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<[u8; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.rgba.get(i..i + 4).and_then(|p| p.try_into().ok())
    }

    /// Mutable access to the pixel at (x, y), or `None` outside the image.
    pub fn pixel_mut(&mut self, x: u32, y: u32) -> Option<&mut [u8]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.rgba.get_mut(i..i + 4)
    }

    /// The image's rows, to draw into.
    pub fn rows_mut(&mut self) -> PixelRows<'_> {
        let bytes = (self.width as usize * 4).max(1);
        PixelRows { width: self.width, rows: self.rgba.chunks_exact_mut(bytes).collect() }
    }

    /// Number of pixels with non-zero alpha.
    pub fn covered_pixels(&self) -> usize {
        self.rgba.chunks_exact(4).filter(|p| p[3] > 0).count()
    }

    /// Smallest rectangle `(x, y, width, height)` holding every pixel with non-zero alpha, or
    /// `None` for a fully transparent image.
    pub fn opaque_bounds(&self) -> Option<(u32, u32, u32, u32)> {
        let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0, 0);
        for (i, p) in self.rgba.chunks_exact(4).enumerate() {
            if p[3] > 0 {
                let (x, y) = ((i % self.width as usize) as u32, (i / self.width as usize) as u32);
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x);
                y1 = y1.max(y);
            }
        }
        (x0 <= x1).then(|| (x0, y0, x1 - x0 + 1, y1 - y0 + 1))
    }
}

/// A rectangle of RGBA pixels to draw into, row by row: an image's own rows
/// ([`Image::rows_mut`]), or a cell's rectangle of a sheet page, whose rows lie a page's width
/// apart.
#[derive(Debug)]
pub struct PixelRows<'a> {
    width: u32,
    rows: Vec<&'a mut [u8]>,
}

impl<'a> PixelRows<'a> {
    /// Rows of `width` pixels, top to bottom; `None` unless each holds exactly `width · 4`
    /// bytes.
    pub fn new(width: u32, rows: Vec<&'a mut [u8]>) -> Option<PixelRows<'a>> {
        let bytes = (width as usize).checked_mul(4)?;
        rows.iter().all(|row| row.len() == bytes).then_some(PixelRows { width, rows })
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.rows.len() as u32
    }

    /// Row `y`'s bytes, or `None` below the last row.
    pub fn row_mut(&mut self, y: u32) -> Option<&mut [u8]> {
        self.rows.get_mut(y as usize).map(|row| &mut **row)
    }

    /// The rows as pixels.
    pub(super) fn pixels(&mut self) -> Vec<&mut [[u8; 4]]> {
        self.rows.iter_mut().map(|row| bytemuck::cast_slice_mut(row)).collect()
    }
}

/// One pixel of a depth render.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DepthPixel {
    /// Linear view depth: distance in front of the camera along its axis, in world units (the
    /// coverage-weighted mean of the pixel's samples). Meaningless where `alpha` is 0.
    pub depth: f32,
    /// Coverage, as the colour image's alpha byte.
    pub alpha: u8,
}

impl DepthPixel {
    /// A pixel nothing covers.
    pub const EMPTY: DepthPixel = DepthPixel { depth: 0.0, alpha: 0 };
}

/// Linear view depth per pixel, rows top to bottom: what [`super::Renderer::render_depth`]
/// writes, for depth maps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DepthImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height` pixels.
    pub pixels: Vec<DepthPixel>,
}

impl DepthImage {
    /// The pixel at (x, y), or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<DepthPixel> {
        if x >= self.width || y >= self.height {
            return None;
        }
        self.pixels.get(y as usize * self.width as usize + x as usize).copied()
    }
}
